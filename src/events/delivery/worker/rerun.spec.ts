import { Rerun } from './rerun.js';

/** A drain that takes `ms` and counts its runs, with a pass at its start as the relay's. */
function counted(ms: number) {
  const runs: number[] = [];
  let rerun!: Rerun<number>;
  const drain = async () => {
    rerun.pass();
    runs.push(Date.now());
    await new Promise((resolve) => setTimeout(resolve, ms));
    return runs.length;
  };
  return { runs, make: (restMs: number) => (rerun = new Rerun(drain, () => undefined, restMs)) };
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Rerun', () => {
  it('runs at once when idle, and once more after a run that was called again', async () => {
    const { runs, make } = counted(20);
    const rerun = make(0);
    const first = rerun.run();
    expect(runs).toHaveLength(1);
    void rerun.run();
    void rerun.run();
    expect(await first).toBe(1);
    await settle(60);
    expect(runs).toHaveLength(2);
  });

  it('with a rest: calls during a run and its rest go into one next run, after the rest', async () => {
    const { runs, make } = counted(10);
    const rerun = make(100);
    void rerun.run();
    await settle(5);
    void rerun.run(); // during the drain: the run rests, then goes round once more
    await settle(30);
    void rerun.run(); // during the rest: joins the same next run
    void rerun.run();
    expect(runs).toHaveLength(1);
    await settle(150);
    expect(runs).toHaveLength(2);
    expect(runs[1] - runs[0]).toBeGreaterThanOrEqual(100);
    await rerun.stop();
  });

  it('with a rest: a lone call after a quiet run starts at once', async () => {
    const { runs, make } = counted(5);
    const rerun = make(1_000);
    await rerun.run();
    const started = Date.now();
    await rerun.run();
    expect(runs).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('stop() ends a rest at once and starts no other run', async () => {
    const { runs, make } = counted(5);
    const rerun = make(10_000);
    void rerun.run();
    void rerun.run();
    await settle(20);
    const started = Date.now();
    await rerun.stop();
    expect(Date.now() - started).toBeLessThan(1_000);
    await settle(20);
    expect(runs).toHaveLength(1);
  });
});
