import { Logger } from '@nestjs/common';

export interface SweepDefinition {
  name: string;
  everyMs: number;
  /** Returns how much it did (logged when not 0). */
  run: () => Promise<number>;
  /** Asks a run in progress to end soon (between two of its transactions): the worker is closing. */
  stop?: () => void;
}

/**
 * Runs a worker's sweeps on in-process timers, one run at a time per sweep, each run starting `everyMs` after
 * the previous one ended. A sweep is what repairs the work Redis lost, so it must not live in Redis: a BullMQ
 * job scheduler can lose its next iteration during an outage and then never run again (docs/decisions.md).
 * A timer survives any Redis outage; a run that fails is logged once per streak of failures, and retried at
 * the next tick. Every worker process runs every sweep; each sweep is safe to run concurrently.
 */
export class SweepTimers {
  private readonly logger = new Logger('Sweeps');
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly failures = new Map<string, number>();
  private stopped = false;

  constructor(private readonly sweeps: SweepDefinition[]) {}

  start(): void {
    for (const sweep of this.sweeps) this.schedule(sweep, Math.min(sweep.everyMs, 1_000));
  }

  /**
   * Stops the timers and waits for runs in progress, at most `waitMs`: a run stuck on Redis during an outage
   * must not hold the shutdown (whatever it did is committed or rolled back per transaction).
   */
  async stop(waitMs = 5_000): Promise<void> {
    this.stopped = true;
    for (const sweep of this.sweeps) sweep.stop?.();
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await Promise.race([Promise.all(this.running.values()), new Promise((resolve) => setTimeout(resolve, waitMs).unref())]);
  }

  /** Runs every sweep now (unless it is running): after Redis comes back, what it lost is repaired at once. */
  runAll(): void {
    if (this.stopped) return;
    for (const sweep of this.sweeps) if (!this.running.has(sweep.name)) void this.run(sweep);
  }

  /**
   * Runs a sweep now (tests and operators) and resolves once a run that started after the call is done. A run
   * in progress may have read before what the caller just wrote (a test's periodic run joined this way once
   * missed the row the test had inserted, and the next run was 30 s away), so it is waited for first.
   */
  async runNow(name: string): Promise<void> {
    const sweep = this.sweeps.find((s) => s.name === name);
    if (!sweep) throw new Error(`no sweep named ${name}`);
    await this.running.get(name);
    await (this.running.get(name) ?? this.run(sweep));
  }

  private schedule(sweep: SweepDefinition, delayMs: number): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      // A run started by runAll() may still be going: wait for it instead of starting a second one.
      void (this.running.get(sweep.name) ?? this.run(sweep)).finally(() => this.schedule(sweep, sweep.everyMs));
    }, delayMs);
    timer.unref();
    this.timers.set(sweep.name, timer);
  }

  private run(sweep: SweepDefinition): Promise<void> {
    const started = Date.now();
    // A sweep that throws before it returns its promise fails this run like one that rejects: nothing escapes
    // to the timer (an uncaught error would end the worker).
    const run = new Promise<number>((resolve) => resolve(sweep.run()))
      .then((done) => {
        const failed = this.failures.get(sweep.name) ?? 0;
        if (failed > 0) this.logger.log({ sweep: sweep.name, failed_runs: failed }, 'sweep runs again');
        this.failures.set(sweep.name, 0);
        if (done > 0) this.logger.log({ sweep: sweep.name, done, ms: Date.now() - started }, 'sweep did work');
      })
      .catch((error: unknown) => {
        const failed = (this.failures.get(sweep.name) ?? 0) + 1;
        this.failures.set(sweep.name, failed);
        if (failed === 1) this.logger.warn({ sweep: sweep.name, err: error }, 'sweep failed; retrying every interval, logging again when it works');
      })
      .finally(() => this.running.delete(sweep.name));
    this.running.set(sweep.name, run);
    return run;
  }
}
