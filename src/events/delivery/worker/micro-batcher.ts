/**
 * Turns many concurrent calls into few: calls made while `maxInFlight` batches are running wait and go
 * together in the next one. A lone call runs at once; under load, batches grow with it. The worker's
 * deliveries claim and record through these, so that 100 jobs in flight cost a few statements, not 200.
 * A failed batch fails each of its calls.
 */
export class MicroBatcher<I, O> {
  private waiting: { input: I; resolve: (output: O) => void; reject: (error: unknown) => void }[] = [];
  private inFlight = 0;

  constructor(
    private readonly run: (inputs: I[]) => Promise<O[]>,
    private readonly maxInFlight = 2,
    private readonly maxBatch = 500,
  ) {}

  submit(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    if (this.inFlight >= this.maxInFlight || !this.waiting.length) return;
    const batch = this.waiting.splice(0, this.maxBatch);
    this.inFlight += 1;
    this.run(batch.map((call) => call.input))
      .then(
        (outputs) => batch.forEach((call, i) => call.resolve(outputs[i])),
        (error: unknown) => batch.forEach((call) => call.reject(error)),
      )
      .finally(() => {
        this.inFlight -= 1;
        this.next();
      });
  }
}
