// PostgreSQL's client connections (all of the server's: the run's, where nothing else uses it), watched from
// jest's main process: global-setup.mjs starts the watch and global-teardown.mjs reports its peak. The server
// refuses connections past max_connections (100 by default), and a refused one failed a test that had nothing
// wrong ("sorry, too many clients already"), so the run keeps its files' connections within a budget
// (DATABASE_POOL_SIZE in global-setup.mjs) and says how close it came.
import pg from 'pg';

const EVERY_MS = 250;
const COUNT = "SELECT count(*)::int AS n, current_setting('max_connections')::int AS max FROM pg_stat_activity WHERE backend_type = 'client backend'";
const BY_APPLICATION = `SELECT coalesce(nullif(application_name, ''), '(unnamed)') AS name, count(*)::int AS n FROM pg_stat_activity
                        WHERE backend_type = 'client backend' GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 8`;

/** Starts sampling on a connection of its own; the result is read with `stop()`. */
export async function watchConnections(connectionString) {
  const client = new pg.Client({ connectionString, application_name: 'loyalty-test-connection-watch' });
  await client.connect();
  client.on('error', () => undefined);
  const started = Date.now();
  const peak = { n: 0, max: 0, atMs: 0, byApplication: [] };
  let busy = false;
  const sample = async () => {
    try {
      const [{ n, max }] = (await client.query(COUNT)).rows;
      peak.max = max;
      if (n > peak.n) Object.assign(peak, { n, atMs: Date.now() - started, byApplication: (await client.query(BY_APPLICATION)).rows });
    } catch {
      // A refused or slow sample says nothing new: the tests that met the limit fail on their own.
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void sample();
  }, EVERY_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await client.end().catch(() => undefined);
      return peak;
    },
  };
}

export function describePeak(peak) {
  const parts = peak.byApplication.map((row) => `${row.name} ${row.n}`).join(', ');
  return `PostgreSQL connections: peak ${peak.n} of max_connections ${peak.max}, ${(peak.atMs / 1000).toFixed(0)} s into the run (${parts}; sampled every ${EVERY_MS} ms)`;
}
