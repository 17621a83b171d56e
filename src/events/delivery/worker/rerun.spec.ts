import { until } from '../../../../test/support/until.js';
import { Rerun } from './rerun.js';

/** A drain the test ends by hand (`finish`), counting its starts, with a pass at its start as the relay's. */
function controlled(restMs: number) {
  const starts: number[] = [];
  const ends: (() => void)[] = [];
  const rerun: Rerun<number> = new Rerun(
    () => {
      rerun.pass();
      starts.push(Date.now());
      return new Promise<number>((resolve) => ends.push(() => resolve(starts.length)));
    },
    () => undefined,
    restMs,
  );
  const finish = () => ends.shift()?.();
  return { rerun, starts, finish };
}

/** Polls `condition` every 5 ms for up to 5 s (a bounded wait, not a bet on the machine's speed). */

describe('Rerun', () => {
  it('runs at once when idle, and once more after a run that was called again', async () => {
    const { rerun, starts, finish } = controlled(0);
    const first = rerun.run();
    expect(starts).toHaveLength(1);
    void rerun.run();
    void rerun.run();
    finish();
    expect(await first).toBe(1);
    await until(() => starts.length === 2);
    finish();
    await rerun.stop();
    expect(starts).toHaveLength(2);
  });

  it('with a rest: calls during a run and its rest go into one next run, after the rest', async () => {
    const { rerun, starts, finish } = controlled(100);
    const first = rerun.run();
    void rerun.run(); // during the drain: the run rests, then goes round once more
    finish();
    await new Promise((resolve) => setImmediate(resolve)); // the drain has ended: the rest has begun
    void rerun.run(); // during the rest: joins the same next run
    void rerun.run();
    expect(starts).toHaveLength(1);
    expect(await first).toBe(1); // the first run's promise ends with its rest
    await until(() => starts.length === 2);
    expect(starts[1] - starts[0]).toBeGreaterThanOrEqual(95);
    finish();
    await rerun.stop();
    expect(starts).toHaveLength(2);
  });

  it('with a rest: a lone call after a quiet run starts at once', async () => {
    const { rerun, starts, finish } = controlled(10_000);
    const first = rerun.run();
    finish();
    await first;
    void rerun.run();
    expect(starts).toHaveLength(2);
    finish();
    await rerun.stop();
  });

  it('stop() ends a rest at once and starts no other run', async () => {
    const { rerun, starts, finish } = controlled(10_000);
    void rerun.run();
    void rerun.run();
    finish();
    const started = Date.now();
    await rerun.stop();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(starts).toHaveLength(1);
  });
});
