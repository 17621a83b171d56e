// The statements a service sends for one request, read from PostgreSQL's own log (log_statement = all on the
// benchmark's database for a short sample), for the benchmarks that compare the API with a plain baseline
// sending the same statements (bench/orders.mjs).
import { existsSync, readdirSync } from 'node:fs';
import { open, readdir, readFile, readlink, stat } from 'node:fs/promises';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** PostgreSQL's log file (BENCH_PG_LOG, else the Debian cluster's), or null when none is readable. */
export async function postgresLog() {
  const candidates = process.env.BENCH_PG_LOG ? [process.env.BENCH_PG_LOG] : existsSync('/var/log/postgresql') ? readdirSync('/var/log/postgresql').filter((f) => /^postgresql-.*\.log$/.test(f)).map((f) => `/var/log/postgresql/${f}`) : [];
  for (const path of candidates) {
    try {
      const handle = await open(path, 'r');
      await handle.close();
      return path;
    } catch {
      // not readable
    }
  }
  return null;
}

/**
 * The PostgreSQL backends (pids) of a local process's TCP connections: the local ports of its sockets
 * (/proc/<pid>/fd, /proc/net/tcp*), matched with pg_stat_activity's client_port. Empty when it has none (a
 * Unix socket connection, or no /proc).
 */
async function backendsOf(db, pid) {
  const inodes = new Set();
  for (const fd of await readdir(`/proc/${pid}/fd`).catch(() => [])) {
    const socket = /^socket:\[(\d+)\]$/.exec(await readlink(`/proc/${pid}/fd/${fd}`).catch(() => ''));
    if (socket) inodes.add(socket[1]);
  }
  const ports = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of (await readFile(table, 'utf8').catch(() => '')).split('\n').slice(1)) {
      const columns = line.trim().split(/\s+/);
      if (columns.length > 9 && inodes.has(columns[9])) ports.push(parseInt(columns[1].split(':').pop(), 16));
    }
  }
  if (!ports.length) return new Set();
  const { rows } = await db.query('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND client_port = ANY($1::int[])', [ports]);
  return new Set(rows.map((row) => row.pid));
}

/**
 * log_statement = all on `dbName`, a new server process from `start()` (only new sessions take the setting;
 * the sessions open before, of the worker and the benchmark, are left out by pid), 3 requests to warm it,
 * then `orders` requests one at a time through `send(server)`; the statements of those, by shape. When the
 * server is a child process (`server.child`), only its own sessions count: the worker may open new sessions
 * during the sample (its pool's idle connections close after 10 s), and their statements (a sweep's) are not
 * the request's.
 */
export async function sampleStatements({ db, dbName, orders, start, stop, send }) {
  const logPath = await postgresLog();
  if (!logPath) return { note: 'PostgreSQL log not readable (set BENCH_PG_LOG): no statement sample' };
  const older = new Set((await db.query('SELECT pid FROM pg_stat_activity WHERE datname = current_database()')).rows.map((r) => r.pid));
  await db.query(`ALTER DATABASE ${dbName} SET log_statement = 'all'`);
  let server;
  let from;
  let to;
  /** The server's own sessions (null: not known, every new session counts). */
  let own = null;
  try {
    server = await start();
    for (let i = 0; i < 3; i += 1) await send(server);
    await sleep(200);
    from = (await stat(logPath)).size;
    for (let i = 0; i < orders; i += 1) await send(server);
    await sleep(300);
    to = (await stat(logPath)).size;
    if (server?.child?.pid) own = await backendsOf(db, server.child.pid);
  } finally {
    await db.query(`ALTER DATABASE ${dbName} RESET log_statement`);
    if (server) await stop(server);
  }
  const handle = await open(logPath, 'r');
  const buffer = Buffer.alloc(to - from);
  await handle.read(buffer, 0, buffer.length, from);
  await handle.close();
  // Entries start with the timestamp; continuation lines (multi-line statements) do not.
  const entries = buffer.toString('utf8').split(/\n(?=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)/);
  const statements = [];
  for (const entry of entries) {
    const match = /^\S+ \S+ \S+ \[(\d+)\] \S*@(\S+) LOG:\s+(?:statement|execute [^:]*): ([\s\S]*)$/.exec(entry.trim());
    if (!match || match[2] !== dbName || older.has(Number(match[1]))) continue;
    if (own?.size && !own.has(Number(match[1]))) continue;
    statements.push(match[3].replace(/\s+/g, ' ').trim());
  }
  const shapes = new Map();
  for (const text of statements) shapes.set(text, (shapes.get(text) ?? 0) + 1);
  return {
    orders,
    statements: statements.length,
    statements_per_order: Number((statements.length / orders).toFixed(2)),
    shapes: [...shapes].map(([text, count]) => ({ per_order: Number((count / orders).toFixed(2)), text })),
  };
}
