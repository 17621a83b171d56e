// Load and accounting for the paid orders benchmark (bench/orders.mjs): autocannon with a new body on every
// request (each a new order), every response's status and latency kept, and the CPU time the API, the
// worker and PostgreSQL spent during a window (Linux /proc), with the database's own counters
// (pg_stat_database) for transactions and rows per order.
import { readdir, readFile } from 'node:fs/promises';
import autocannon from 'autocannon';
import { cpuMs, round } from './http-load.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function quantiles(sorted) {
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;
  return { p50_ms: round(at(0.5)), p90_ms: round(at(0.9)), p99_ms: round(at(0.99)), max_ms: round(sorted.at(-1) ?? NaN) };
}

/**
 * POST `path` at `connections` connections for `seconds`, each request's body from `body()` (called once per
 * request), or its path and body from `next()`. It does not stop on errors: every status is counted. Latencies from autocannon's per-response
 * timings: `p50_ms`/`p99_ms` over 2xx responses, `all` over every response. `orders_per_s` counts 2xx only.
 */
export function postLoad({ base, path, headers, seconds, connections, body, next }) {
  return new Promise((resolve, reject) => {
    const ok = [];
    const all = [];
    const instance = autocannon(
      {
        url: base + path,
        connections,
        duration: seconds,
        timeout: 10,
        headers: { ...headers, 'content-type': 'application/json' },
        // `next()` ({ path, body }) when each request has a path of its own (bench/redemptions.mjs: the card's code).
        requests: [{ method: 'POST', setupRequest: (request) => ({ ...request, method: 'POST', ...(next ? next() : { body: body() }) }) }],
      },
      (error, result) => {
        if (error) return reject(error);
        ok.sort((a, b) => a - b);
        all.sort((a, b) => a - b);
        resolve({
          requests: result.requests.total,
          ok: result['2xx'],
          orders_per_s: round(result['2xx'] / result.duration),
          ...quantiles(ok),
          all: quantiles(all),
          // Sent and not answered when the window closed (still in the server; see drain in bench/orders.mjs).
          unanswered: result.requests.sent - result.requests.total,
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          status_codes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count])),
          duration_s: result.duration,
        });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      all.push(responseTime);
      if (statusCode >= 200 && statusCode < 300) ok.push(responseTime);
    });
  });
}

/** Every process named `postgres` on the machine (the server of every database, and other users' work). */
async function postgresPids() {
  const pids = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const comm = await readFile(`/proc/${entry}/comm`, 'utf8').catch(() => '');
    if (comm.trim() === 'postgres') pids.push(Number(entry));
  }
  return pids;
}

/** CPU ms of each pid in `pids` (0 for those gone). */
async function cpuEach(pids) {
  return new Map(await Promise.all(pids.map(async (pid) => [pid, (await cpuMs([pid])) ?? 0])));
}

/** CPU used between two cpuEach maps: a pid new at the end counts from 0; a pid gone at the end is lost. */
function spent(before, after) {
  let ms = 0;
  for (const [pid, end] of after) ms += Math.max(0, end - (before.get(pid) ?? 0));
  return ms;
}

const COUNTERS = ['xact_commit', 'xact_rollback', 'tup_inserted', 'tup_updated', 'tup_deleted', 'tup_returned', 'tup_fetched', 'deadlocks', 'conflicts'];

/** This database's pg_stat_database counters (backends report them at most once a second). */
export async function databaseCounters(db) {
  await db.query('SELECT pg_stat_clear_snapshot()');
  const [row] = (await db.query(`SELECT ${COUNTERS.join(', ')} FROM pg_stat_database WHERE datname = current_database()`)).rows;
  return Object.fromEntries(COUNTERS.map((name) => [name, Number(row[name])]));
}

async function backendPids(db) {
  return (await db.query('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()')).rows.map((r) => r.pid);
}

/**
 * One measured window: `postLoad(run)`, with the CPU time of `processes` ({ name: pid }), of this database's
 * PostgreSQL backends (those connected at the start or the end) and of every `postgres` process on the
 * machine (other databases' work included: a noisy upper bound), and the database's counters, each per
 * 2xx order. The counters are read 1.1 s after the window (backends flush them at most once a second), so
 * they include what the worker did for the window's orders in that time.
 */
export async function measureOrders(db, processes, run) {
  const names = Object.keys(processes);
  const pgAll = await postgresPids();
  const startBackends = await backendPids(db);
  await sleep(1100);
  const counters = await databaseCounters(db);
  const before = { procs: await cpuEach(Object.values(processes)), backends: await cpuEach(startBackends), all: await cpuEach(pgAll) };
  const measured = await postLoad(run);
  const endBackends = [...new Set([...startBackends, ...(await backendPids(db))])];
  const after = { procs: await cpuEach(Object.values(processes)), backends: await cpuEach(endBackends), all: await cpuEach([...new Set([...pgAll, ...(await postgresPids())])]) };
  await sleep(1100);
  const countersAfter = await databaseCounters(db);
  const per = (ms) => (measured.ok ? Number((ms / measured.ok).toFixed(3)) : null);
  const cpu = {};
  for (const name of names) cpu[name] = per(Math.max(0, after.procs.get(processes[name]) - before.procs.get(processes[name])));
  cpu.postgres_backends = per(spent(before.backends, after.backends));
  cpu.postgres_all = per(spent(before.all, after.all));
  const database = Object.fromEntries(COUNTERS.map((name) => [name, countersAfter[name] - counters[name]]));
  const perOrder = Object.fromEntries(['xact_commit', 'xact_rollback', 'tup_inserted', 'tup_updated', 'tup_deleted'].map((name) => [name, measured.ok ? Number((database[name] / measured.ok).toFixed(2)) : null]));
  return { ...measured, cpu_ms_per_order: cpu, database, database_per_order: perOrder };
}

/**
 * The same load on two servers in windows A B B A. `sides`: { a: { processes, base }, b: { processes, base } }
 * where `processes` names the pids to account ({ server: pid, … }). Each side: means of its two windows.
 */
export async function interleavedOrders(db, sides, run) {
  const runs = { a: [], b: [] };
  for (const side of ['a', 'b', 'b', 'a']) runs[side].push(await measureOrders(db, sides[side].processes, { ...run, base: sides[side].base }));
  const mean = (values) => round(values.reduce((sum, v) => sum + v, 0) / values.length);
  const combine = (list) => ({
    orders_per_s: mean(list.map((r) => r.orders_per_s)),
    p50_ms: mean(list.map((r) => r.p50_ms)),
    p99_ms: mean(list.map((r) => r.p99_ms)),
    cpu_ms_per_order: Object.fromEntries(Object.keys(list[0].cpu_ms_per_order).map((k) => [k, list.some((r) => r.cpu_ms_per_order[k] === null) ? null : Number((list.reduce((s, r) => s + r.cpu_ms_per_order[k], 0) / list.length).toFixed(3))])),
    database_per_order: Object.fromEntries(Object.keys(list[0].database_per_order).map((k) => [k, Number((list.reduce((s, r) => s + (r.database_per_order[k] ?? 0), 0) / list.length).toFixed(2))])),
    non2xx: list.reduce((sum, r) => sum + r.non2xx + r.errors + r.timeouts, 0),
    status_codes: list.reduce((acc, r) => {
      for (const [code, n] of Object.entries(r.status_codes)) acc[code] = (acc[code] ?? 0) + n;
      return acc;
    }, {}),
    windows: list,
  });
  return { a: combine(runs.a), b: combine(runs.b) };
}

/**
 * Waits (up to 30 s) until no session of this database but the benchmark's and the webhook relay's is in a
 * transaction or running a statement: requests a window left in flight must not run into the next one.
 */
export async function drain(db) {
  const started = performance.now();
  for (let quiet = 0; quiet < 3 && performance.now() - started < 30_000; await sleep(100)) {
    const [{ n }] = (
      await db.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
         AND state IN ('active', 'idle in transaction') AND application_name NOT LIKE 'loyalty-webhook%'`,
      )
    ).rows;
    quiet = n === 0 ? quiet + 1 : 0;
  }
  return Number(((performance.now() - started) / 1000).toFixed(1));
}

/** What the API logged at warn level or above since byte `from` of its log: counts by message. */
/**
 * A histogram of the API's /metrics (the benchmarks' API runs with METRICS_PUBLIC=true): its observations and
 * their sum, both NaN when the server has no such metric (a plain baseline).
 */
export async function histogram(base, name) {
  const text = await fetch(`${base}/metrics`).then((res) => res.text()).catch(() => '');
  const value = (suffix) => Number(new RegExp(`^${name}_${suffix} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { count: value('count'), sum: value('sum') };
}

/** Batches between two readings of a batch-size `histogram`: how many, and the mean items per batch (null: none, or no such metric). */
export function perBatch(before, after) {
  const batches = after.count - before.count;
  return { batches: Number.isNaN(batches) ? null : batches, per_batch: batches > 0 ? Number(((after.sum - before.sum) / batches).toFixed(1)) : null };
}

export async function apiWarnings(apiLog, from) {
  const text = await readFile(apiLog, 'utf8').catch(() => '');
  const counts = {};
  for (const line of Buffer.from(text).subarray(from).toString('utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    let entry;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (!(entry.level >= 40)) continue;
    const key = `${entry.level >= 50 ? 'error' : 'warn'}: ${entry.msg}${entry.err?.message ? `: ${entry.err.message}` : ''}${entry.status ? ` (${entry.status})` : ''}`.slice(0, 200);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}
