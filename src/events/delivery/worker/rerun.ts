/**
 * One run of `drain` at a time, for work that notifications announce: a call while a run is in progress
 * gets that run and has it go round once more when it ends, so work announced mid-run is not left for the
 * next sweep. `drain` calls `pass()` at the start of each of its passes (a pass covers what was announced
 * before it began). After `stop()`, no run starts again.
 *
 * With `restMs`, a run that was called again while it drained waits that long before the next one starts
 * (calls in the rest join it): under a steady stream of notifications (a commit each, hundreds a second) runs
 * take the work of many at once instead of one transaction per notification, while a lone notification is
 * still served at once.
 */
export class Rerun<T> {
  private running: Promise<T> | null = null;
  private again = false;
  private halted = false;
  private endRest: (() => void) | null = null;

  constructor(
    private readonly drain: () => Promise<T>,
    private readonly failed: (error: unknown) => void,
    private readonly restMs = 0,
  ) {}

  get stopped(): boolean {
    return this.halted;
  }

  run(): Promise<T> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.drain()
      .then(async (result) => {
        if (this.again && this.restMs > 0 && !this.halted) await this.rest();
        return result;
      })
      .finally(() => {
        this.running = null;
        if (this.again && !this.halted) {
          this.again = false;
          void this.run().catch(this.failed);
        }
      });
    return this.running;
  }

  /** The start of one of the drain's passes: what was announced so far is covered by it. */
  pass(): void {
    this.again = false;
  }

  /** No new run; ends a rest at once and waits for the run in progress. */
  async stop(): Promise<void> {
    this.halted = true;
    this.endRest?.();
    await this.running?.catch(() => undefined);
  }

  private rest(): Promise<void> {
    return new Promise((resolve) => {
      const end = () => {
        clearTimeout(timer);
        this.endRest = null;
        resolve();
      };
      const timer = setTimeout(end, this.restMs);
      this.endRest = end;
    });
  }
}
