// Where a database's sessions wait during a measured window (bench/redemptions.mjs): pg_stat_activity sampled
// every 50 ms on a connection of its own.
import pg from 'pg';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a waiting session is waiting for, by the statement it runs (the service's own texts). */
function waitingFor(query) {
  if (/^UPDATE rewards SET redeemed/.test(query)) return 'the reward row (its stock unit)';
  if (/^SELECT stock FROM rewards .*FOR KEY SHARE/.test(query)) return 'the reward row (held FOR KEY SHARE, no stock)';
  if (/FROM vouchers .*FOR NO KEY UPDATE/.test(query)) return 'the card row (its lock)';
  return query.split(/\s+/).slice(0, 3).join(' ');
}

/**
 * Starts sampling the client sessions of `connectionString`'s database; `stop()` resolves to the mean number of
 * sessions running a statement or in a transaction, and the mean number waiting for a lock by what they wait
 * for. A redemption waits for its card's row (taken first) and then, at its end, for its reward's row: a
 * redemption of a reward with a stock updates that row (`redeemed + 1`) and holds it until COMMIT; one of a
 * reward without a stock holds it FOR KEY SHARE, which the others share.
 */
export async function sampleLockWaits(connectionString) {
  const client = new pg.Client({ connectionString, application_name: 'loyalty-bench-lock-waits' });
  await client.connect();
  const waiting = {};
  let samples = 0;
  let busy = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const { rows } = await client.query(
        `SELECT state, wait_event_type, left(query, 400) AS query FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
      );
      samples += 1;
      for (const row of rows) {
        if (row.state === 'active' || row.state === 'idle in transaction') busy += 1;
        if (row.wait_event_type === 'Lock') waiting[waitingFor(row.query)] = (waiting[waitingFor(row.query)] ?? 0) + 1;
      }
      await sleep(50);
    }
  })();
  const mean = (n) => Number((n / Math.max(1, samples)).toFixed(2));
  return {
    async stop() {
      running = false;
      await loop;
      await client.end();
      return { samples, sessions_busy_mean: mean(busy), waiting_for_a_lock_mean: Object.fromEntries(Object.entries(waiting).map(([key, n]) => [key, mean(n)])) };
    },
  };
}
