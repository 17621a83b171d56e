// HTTP load for the benchmarks: autocannon runs with per-response latencies, the CPU time processes spent
// during a run (Linux /proc), and side-by-side comparisons in interleaved windows.
import { readFile } from 'node:fs/promises';
import autocannon from 'autocannon';

export const round = (ms) => Math.round(ms * 100) / 100;

/**
 * autocannon for `seconds` on one path. Latencies come from its per-response timings (sub-millisecond,
 * the histogram it prints rounds to whole milliseconds); requests per second is 2xx responses over the
 * measured time. `options` go to autocannon as they are (`method`, `body`, `requests`).
 */
export function load({ base, path, headers, seconds, connections, ...options }) {
  return new Promise((resolve, reject) => {
    const latencies = [];
    const instance = autocannon({ url: base + path, connections, duration: seconds, headers, timeout: 10, ...options }, (error, result) => {
      if (error) return reject(error);
      latencies.sort((a, b) => a - b);
      const at = (q) => latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)] ?? NaN;
      resolve({
        requests: result.requests.total,
        rps: result['2xx'] / result.duration,
        p50_ms: round(at(0.5)),
        p90_ms: round(at(0.9)),
        p99_ms: round(at(0.99)),
        max_ms: round(latencies.at(-1) ?? NaN),
        mean_ms: round(latencies.reduce((a, b) => a + b, 0) / latencies.length),
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
        status_codes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count])),
        duration_s: result.duration,
      });
    });
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
  });
}

/** User + system CPU time of these processes in ms, from /proc; null when `required` has no /proc entry. */
export async function cpuMs(pids, required = []) {
  let ticks = 0;
  for (const pid of pids) {
    let stat;
    try {
      stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    } catch {
      if (required.includes(pid)) return null;
      continue;
    }
    // Fields after "(comm) ": state is the first; utime and stime are the 12th and 13th (clock ticks of 10 ms).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * 10;
}

/** The database's backends but `db`'s own, and the CPU ms each has used so far. */
async function backendCpu(db) {
  const pids = (await db.query('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()')).rows.map((r) => r.pid);
  const cpu = new Map();
  for (const pid of pids) {
    const ms = await cpuMs([pid], [pid]);
    if (ms !== null) cpu.set(pid, ms);
  }
  return cpu;
}

/**
 * One measured run against the server process `pid`, with the CPU time it and the database's backends
 * (`db`, a pg client on that database) spent, per request. A backend is counted by its own difference: one
 * that started during the run counts all its CPU, one that ended during it is left out (its last reading is
 * gone): a small undercount when a pool replaces connections, never a negative figure (summing the pids of
 * the start at both ends counted a backend that ended as a loss).
 */
export async function measure(db, pid, run) {
  const before = [await cpuMs([pid], [pid]), await backendCpu(db)];
  const measured = await load(run);
  const after = [await cpuMs([pid], [pid]), await backendCpu(db)];
  let postgres = 0;
  for (const [backend, ms] of after[1]) postgres += ms - (before[1].get(backend) ?? 0);
  const perRequest = (ms) => (before[0] === null ? null : Number((ms / measured.requests).toFixed(3)));
  return { ...measured, server_cpu_ms_per_request: perRequest(after[0] - before[0]), postgres_cpu_ms_per_request: perRequest(postgres) };
}

/**
 * The same load on two servers in windows A B B A, so that machine noise hits both alike. `sides` is
 * `{ a: { pid, base }, b: { pid, base } }`; each side's figures are the means over its two windows (p99:
 * the mean of the two windows' p99), with the windows listed.
 */
export async function interleaved(db, sides, run) {
  const runs = { a: [], b: [] };
  for (const side of ['a', 'b', 'b', 'a']) runs[side].push(await measure(db, sides[side].pid, { ...run, base: sides[side].base }));
  const mean = (list, field) => (list.some((r) => r[field] === null) ? null : Number((list.reduce((sum, r) => sum + r[field], 0) / list.length).toFixed(3)));
  const combine = (list) => ({
    rps: round(mean(list, 'rps')),
    p50_ms: round(mean(list, 'p50_ms')),
    p99_ms: round(mean(list, 'p99_ms')),
    server_cpu_ms_per_request: mean(list, 'server_cpu_ms_per_request'),
    postgres_cpu_ms_per_request: mean(list, 'postgres_cpu_ms_per_request'),
    non2xx: list.reduce((sum, r) => sum + r.non2xx + r.errors + r.timeouts, 0),
    windows: list.map((r) => ({ rps: round(r.rps), p50_ms: r.p50_ms, p99_ms: r.p99_ms, server_cpu_ms_per_request: r.server_cpu_ms_per_request })),
  });
  return { a: combine(runs.a), b: combine(runs.b) };
}
