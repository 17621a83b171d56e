/**
 * Runs `step(batch)` until a run does less than a full batch, and returns the total: the bounded deletes of a
 * sweep, each its own short statement holding at most `batch` row locks.
 */
export async function untilShortBatch(batch: number, step: (limit: number) => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const done = await step(batch);
    total += done;
    if (done < batch) return total;
  }
}
