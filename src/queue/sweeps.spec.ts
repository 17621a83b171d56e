import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { until } from '../../test/support/until.js';
import { SweepTimers } from './sweeps.js';


describe('SweepTimers', () => {
  let warnings: unknown[];
  let infos: string[];
  beforeEach(() => {
    warnings = [];
    infos = [];
    jest.spyOn(Logger.prototype, 'warn').mockImplementation((fields: unknown) => void warnings.push(fields));
    jest.spyOn(Logger.prototype, 'log').mockImplementation((_fields: unknown, message?: unknown) => void infos.push(String(message)));
  });
  afterEach(() => jest.restoreAllMocks());

  it('runs each sweep again and again, never two runs of one sweep at once', async () => {
    let running = 0;
    let overlapped = false;
    let runs = 0;
    const timers = new SweepTimers([
      {
        name: 'slow',
        everyMs: 10,
        run: async () => {
          running += 1;
          overlapped ||= running > 1;
          await new Promise((resolve) => setTimeout(resolve, 20));
          running -= 1;
          runs += 1;
          return 0;
        },
      },
    ]);
    timers.start();
    timers.runAll();
    timers.runAll();
    await until(() => runs >= 5);
    await timers.stop();
    expect(overlapped).toBe(false);
  });

  it('runNow during a run waits for it, then runs again: what the caller wrote before is read', async () => {
    const started: number[] = [];
    let release = () => undefined as void;
    const timers = new SweepTimers([
      {
        name: 'held',
        everyMs: 60_000,
        run: async () => {
          started.push(Date.now());
          if (started.length === 1) await new Promise<void>((resolve) => (release = resolve));
          return 0;
        },
      },
    ]);
    timers.runAll();
    await until(() => started.length === 1);
    const called = Date.now();
    const now = timers.runNow('held');
    release();
    await now;
    expect(started).toHaveLength(2);
    expect(started[1]).toBeGreaterThanOrEqual(called);
    await timers.stop();
  });

  it('logs a streak of failures once, and once more when the sweep works again', async () => {
    let calls = 0;
    const timers = new SweepTimers([
      {
        name: 'flaky',
        everyMs: 10,
        run: async () => {
          calls += 1;
          if (calls <= 4) throw new Error('Redis is down');
          return 3;
        },
      },
    ]);
    timers.start();
    await until(() => calls >= 6);
    await timers.stop();
    expect(warnings).toHaveLength(1);
    expect(infos.filter((message) => message === 'sweep runs again')).toHaveLength(1);
    expect(infos.filter((message) => message === 'sweep did work').length).toBeGreaterThanOrEqual(2);
  });

  it('counts a sweep that throws before returning its promise as a failed run, and runs it again', async () => {
    let calls = 0;
    const timers = new SweepTimers([
      {
        name: 'sync',
        everyMs: 10,
        run: () => {
          calls += 1;
          if (calls <= 2) throw new Error('thrown before any promise');
          return Promise.resolve(0);
        },
      },
    ]);
    timers.start();
    timers.runAll();
    await until(() => calls >= 4);
    await timers.stop();
    expect(warnings).toEqual([expect.objectContaining({ sweep: 'sync', err: new Error('thrown before any promise') })]);
  });

  it('stops without waiting longer than it is told for a run that hangs', async () => {
    const timers = new SweepTimers([{ name: 'stuck', everyMs: 10, run: () => new Promise<number>(() => undefined) }]);
    timers.start();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await timers.stop(100);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
