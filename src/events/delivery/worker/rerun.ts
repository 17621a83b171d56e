/**
 * One run of `drain` at a time, for work that notifications announce: a call while a run is in progress
 * gets that run and has it go round once more when it ends, so work announced mid-run is not left for the
 * next sweep. `drain` calls `pass()` at the start of each of its passes (a pass covers what was announced
 * before it began). After `stop()`, no run starts again.
 */
export class Rerun<T> {
  private running: Promise<T> | null = null;
  private again = false;
  private halted = false;

  constructor(
    private readonly drain: () => Promise<T>,
    private readonly failed: (error: unknown) => void,
  ) {}

  get stopped(): boolean {
    return this.halted;
  }

  run(): Promise<T> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.drain().finally(() => {
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

  /** No new run; waits for the one in progress. */
  async stop(): Promise<void> {
    this.halted = true;
    await this.running?.catch(() => undefined);
  }
}
