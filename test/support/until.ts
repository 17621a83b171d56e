/**
 * Polls `condition` until it holds, at most `timeoutMs` (a bounded wait, not a bet on the machine's speed); throws
 * when it never held. For unit specs, whose conditions read in-memory state (the database-backed tiers poll with
 * harness.ts `waitFor`).
 */
export async function until(condition: () => boolean, { timeoutMs = 5_000, intervalMs = 5 } = {}): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !condition(); await new Promise((resolve) => setTimeout(resolve, intervalMs))) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
  }
}
