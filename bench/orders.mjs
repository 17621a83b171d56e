// Paid orders benchmark: POST /v1/orders with status PAID, each request a new order (a new source_id), on the
// compiled API (`node dist/main.js`) with the worker (`node dist/worker.js`) running, in a database and queue
// prefix of its own that are removed afterwards:
//
//   (a) spread: 300 customers, each a member of two loyalty programs (two AUTO_UPDATE campaigns), each
//       campaign with an accrual rule (FIXED 10) and a pending rule (FIXED 5, pending 14 days): every order
//       earns four times (two ledger rows, two pending entries). --connections clients (32), the customer
//       of each order taken round-robin.
//   (b) hot card: 20 clients (fixed) on 2 customers, members of one campaign whose only rule is pending:
//       every order adds a pending entry to one of two cards.
//   (c) raw: part (a)'s load on the API and on a plain node:http + pg server doing the same writes with
//       the API's statements (from dist/) in one transaction (bench/orders-raw-server.mjs), windows A B B A.
//
// Per part: orders/s (2xx), p50/p99 latency, the status histogram, CPU ms per order of the API, the worker
// and PostgreSQL (this database's backends; and every postgres process of the machine, other work
// included), transactions and rows per order (pg_stat_database), and the statements the API sends per
// order, from a short sample with log_statement = all on this database (a separate API process, so that
// only its new sessions log; PostgreSQL's log must be readable: BENCH_PG_LOG, else
// /var/log/postgresql/postgresql-*-main.log).
//
// Options: --duration S (10), --warmup S (2), --connections C (32; part b uses 20), --parts spread,hot,raw.
// A crash exits 1; so does a missed target, as bench/member-list.mjs does (targets: (a) >= 500 orders/s and
// p99 <= 200 ms; (b) no non-2xx answer and p99 <= 500 ms). Results: bench/results/orders.json.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { adminQuery, call, campaign } from './lib/api.mjs';
import { freePort, run, startApiProcess, startProcess, stopProcess } from './lib/processes.mjs';
import { accrual, checkData, enrolAll, orders, pending } from './lib/orders-setup.mjs';
import { positive } from './lib/args.mjs';
import { sampleStatements } from './lib/statement-log.mjs';
import { apiWarnings, drain, histogram, interleavedOrders, measureOrders, perBatch, postLoad } from './lib/orders-load.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '32' },
    parts: { type: 'string', default: 'spread,hot,raw' },
  },
});
const DURATION = positive(args.duration, '--duration');
const WARMUP = args.warmup === '0' ? 0 : positive(args.warmup, '--warmup');
const CONNECTIONS = positive(args.connections, '--connections');
const PARTS = new Set(args.parts.split(',').filter(Boolean));
for (const part of PARTS) if (!['spread', 'hot', 'raw'].includes(part)) throw new Error(`--parts takes spread, hot and raw; got '${part}'`);
const SPREAD_CUSTOMERS = 300;
const HOT_CUSTOMERS = 2;
const HOT_CONNECTIONS = 20;
const SAMPLE_ORDERS = 20;
const TARGETS = { spread: { orders_per_s_at_least: 500, p99_ms_at_most: 200 }, hot: { non2xx: 0, p99_ms_at_most: 500 } };

// dist/ must match the sources (a no-op when it does); `npm run bench` has built already.
execFileSync(process.execPath, [join(root, 'scripts/build-if-needed.mjs')], { cwd: root, stdio: 'inherit' });
const { loadConfig } = await import('../dist/config/app-config.js');
const { dropDatabase } = await import('../dist/database/ensure-database.js');
const { migrateDatabase } = await import('../dist/app/database/migrate.js');
const { deleteKeysWithPrefix } = await import('../dist/queue/redis-keys.js');

const runId = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
// The server's address only (whatever DATABASE_POOLER the API is measured with): the benchmark's database is its own.
const url = new URL(loadConfig({ DATABASE_POOLER: 'none' }).databaseUrl);
const dbName = `loyalty_bench_${runId}`;
url.pathname = `/${dbName}`;
const config = loadConfig({ DATABASE_URL: url.toString(), DATABASE_SESSION_URL: url.toString(), QUEUE_PREFIX: `loyalty_bench_${runId}`, LOG_LEVEL: 'warn' });
// The limiter stays on at a rate the load never reaches (the default 300 a second would answer with 429).
const childEnv = { ...process.env, DATABASE_URL: config.databaseUrl, DATABASE_SESSION_URL: config.databaseUrl, REDIS_URL: config.redisUrl, QUEUE_PREFIX: config.queuePrefix, RATE_LIMIT_PER_SECOND: '1000000', METRICS_PUBLIC: 'true' };
delete childEnv.BOOTSTRAP_APP_ID;
delete childEnv.BOOTSTRAP_APP_TOKEN;
const apiLog = join(os.tmpdir(), `loyalty-bench-${runId}-api.log`);

const children = [];
/** Child processes that exited without being asked to: a crash fails the run. */
const crashed = [];
const stopping = new Set();
let cleaned = false;

function watch(child, name) {
  child.once('exit', (code, signal) => {
    if (!stopping.has(child) && !cleaned) crashed.push(`${name} (pid ${child.pid}) exited with ${signal ?? code}`);
  });
  return child;
}

function assertAlive(where) {
  if (crashed.length) throw new Error(`${where}: ${crashed.join('; ')}`);
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function cleanup() {
  if (cleaned) return;
  cleaned = true;
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(30_000)]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  // In case a statement sample was cut short.
  await adminQuery(config.databaseUrl, `ALTER DATABASE ${dbName} RESET log_statement`).catch(() => undefined);
  await dropDatabase(config.databaseUrl);
  await deleteKeysWithPrefix(config.redisUrl, config.queuePrefix);
}

process.once('SIGINT', () => {
  console.error('\ninterrupted: stopping the API and the worker, dropping the database');
  cleanup().catch((error) => console.error(error)).finally(() => process.exit(130));
});

/** The API as production runs it (default LOG_LEVEL, its log to a file), on a free port. */
async function startApi() {
  const api = await startApiProcess({ env: childEnv, log: apiLog, nodeArgs: process.env.BENCH_API_NODE_ARGS?.split(' ').filter(Boolean) });
  children.push(watch(api.child, 'the API'));
  return api;
}

async function stopChild(child) {
  stopping.add(child);
  await stopProcess(child);
  children.splice(children.indexOf(child), 1);
}

/**
 * The statements the API sends per order of a part: a new API process (only new sessions log), 3 orders to
 * warm it, then SAMPLE_ORDERS orders one at a time (bench/lib/statement-log.mjs).
 */
function statementSample(db, headers, bodyOf, start = startApi) {
  return sampleStatements({ db, dbName, orders: SAMPLE_ORDERS, start, stop: (api) => stopChild(api.child), send: (api) => call(api.base, headers, 'POST', '/v1/orders', JSON.parse(bodyOf())) });
}

/** The API's batch histogram (loyalty_paid_order_batch_size): its observations and their sum. */
const batches = (base) => histogram(base, 'loyalty_paid_order_batch_size');

/** A measured window of a part: the load, then the API's warnings during it, its batches of paid orders and the time to drain. */
async function window(db, processes, run) {
  assertAlive('before a measured window');
  const from = (await stat(apiLog).catch(() => ({ size: 0 }))).size;
  const before = await batches(run.base);
  const measured = await measureOrders(db, processes, run);
  assertAlive('during a measured window');
  const drained = await drain(db);
  await sleep(200);
  const after = await batches(run.base);
  const { batches: count, per_batch: perOrderBatch } = perBatch(before, after);
  const paid_order_batches = { batches: count, orders_per_batch: perOrderBatch };
  return { ...measured, drain_s: drained, api_warnings: await apiWarnings(apiLog, from), paid_order_batches };
}

async function machine(db) {
  const [{ server_version: postgres }] = (await db.query('SHOW server_version')).rows;
  return { cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, memory_gib: Math.round(os.totalmem() / 2 ** 30), node: process.version, postgres, load_average: os.loadavg().map((v) => Number(v.toFixed(2))) };
}

function commit() {
  try {
    const id = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: root, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${id} (src/ modified)` : id;
  } catch {
    return 'unknown';
  }
}

function printPart(label, r) {
  const cpu = Object.entries(r.cpu_ms_per_order).map(([k, v]) => `${k} ${v}`).join(', ');
  console.log(`  ${label}`);
  console.log(`    ${r.orders_per_s.toFixed(0)} orders/s (2xx), p50 ${r.p50_ms} ms, p99 ${r.p99_ms} ms (2xx); all answers p50 ${r.all.p50_ms} p99 ${r.all.p99_ms} ms; ${r.requests} requests`);
  console.log(`    statuses ${JSON.stringify(r.status_codes)}, socket errors ${r.errors}, timeouts ${r.timeouts}, unanswered at the window's end ${r.unanswered}${r.drain_s === undefined ? '' : r.drain_s >= 30 ? ' (still not drained after 30 s)' : ` (drained in ${r.drain_s} s)`}`);
  if (r.api_warnings && Object.keys(r.api_warnings).length) console.log(`    API log, warn and above: ${Object.entries(r.api_warnings).map(([k, n]) => `${n} × ${k}`).join('; ')}`);
  console.log(`    CPU ms per order: ${cpu}`);
  if (r.paid_order_batches) console.log(`    paid orders per batch transaction (the API's loyalty_paid_order_batch_size): ${r.paid_order_batches.orders_per_batch} on average, ${r.paid_order_batches.batches} batches`);
  console.log(`    per order (pg_stat_database): ${Object.entries(r.database_per_order).map(([k, v]) => `${k} ${v}`).join(', ')}; deadlocks ${r.database.deadlocks}`);
}

async function main() {
  const started = performance.now();
  await migrateDatabase(config);
  const project = JSON.parse(await run(process.execPath, ['dist/cli.js', 'create-project', '--name', `bench orders ${runId}`], childEnv));
  const headers = { 'x-app-id': project.app_id, 'x-app-token': project.app_token };

  const api = await startApi();
  const worker = await startProcess([...(process.env.BENCH_WORKER_NODE_ARGS?.split(' ').filter(Boolean) ?? []), 'dist/worker.js'], 'Worker ready', childEnv);
  children.push(watch(worker, 'the worker'));

  const setupStarted = performance.now();
  const spreadA = await campaign(api, headers, `Spread A ${runId}`, [accrual(10), pending(5)]);
  const spreadB = await campaign(api, headers, `Spread B ${runId}`, [accrual(10), pending(5)]);
  const hot = await campaign(api, headers, `Hot ${runId}`, [pending(5)]);
  const spreadCustomers = Array.from({ length: SPREAD_CUSTOMERS }, (_, i) => `bench-spread-${i}`);
  const hotCustomers = Array.from({ length: HOT_CUSTOMERS }, (_, i) => `bench-hot-${i}`);
  await enrolAll(api, headers, spreadCustomers, [spreadA.program_id, spreadB.program_id]);
  await enrolAll(api, headers, hotCustomers, [hot.program_id]);
  console.log(`set up: 3 campaigns, ${SPREAD_CUSTOMERS} customers in two programs and ${HOT_CUSTOMERS} in one, in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s`);

  const db = new pg.Client({ connectionString: config.databaseUrl });
  await db.connect();
  const results = { spread: null, hot: null, raw: null };
  const samples = {};
  const checks = {};
  let info;
  try {
    await db.query('VACUUM (ANALYZE)');
    await db.query('CHECKPOINT').catch(() => undefined);
    info = await machine(db);
    const processes = { api: api.child.pid, worker: worker.pid };

    if (PARTS.has('spread') || PARTS.has('raw')) {
      const tag = `spread-${runId}`;
      const body = orders(tag, spreadCustomers);
      samples.spread = await statementSample(db, headers, orders(`sample-spread-${runId}`, spreadCustomers));
      if (PARTS.has('spread')) {
        if (WARMUP > 0) await postLoad({ base: api.base, path: '/v1/orders', headers, seconds: WARMUP, connections: CONNECTIONS, body });
        await drain(db);
        assertAlive('after the warm-up of part (a)');
        results.spread = await window(db, processes, { base: api.base, path: '/v1/orders', headers, seconds: DURATION, connections: CONNECTIONS, body });
        checks.spread = await checkData(db, tag, 4);
      }
    }
    if (PARTS.has('hot')) {
      const tag = `hot-${runId}`;
      const body = orders(tag, hotCustomers);
      samples.hot = await statementSample(db, headers, orders(`sample-hot-${runId}`, hotCustomers));
      if (WARMUP > 0) await postLoad({ base: api.base, path: '/v1/orders', headers, seconds: WARMUP, connections: HOT_CONNECTIONS, body });
      await drain(db);
      assertAlive('after the warm-up of part (b)');
      results.hot = await window(db, processes, { base: api.base, path: '/v1/orders', headers, seconds: DURATION, connections: HOT_CONNECTIONS, body });
      checks.hot = await checkData(db, tag, 1);
    }
    if (PARTS.has('raw')) results.raw = await rawBaseline(db, api, worker, headers, spreadCustomers);
    assertAlive('at the end');
  } finally {
    await db.end();
  }

  console.log(`\npaid orders (POST /v1/orders, status PAID, a new order each request), ${DURATION} s windows after a ${WARMUP} s warm-up; commit ${commit()}`);
  console.log(`${info.cpu}, ${info.cores} cores, PostgreSQL ${info.postgres}, Node ${info.node}, load average ${info.load_average.join(' ')} at the start\n`);
  const verdicts = [];
  const verdict = (label, met) => {
    verdicts.push({ label, met });
    console.log(`    ${met ? 'MET' : 'MISSED'}: ${label}`);
  };
  if (results.spread) {
    printPart(`(a) spread: ${SPREAD_CUSTOMERS} customers, 2 campaigns × (accrual + pending) = 4 earnings per order, ${CONNECTIONS} connections`, results.spread);
    if (samples.spread) console.log(`    statements per order sent by the API (log sample of ${SAMPLE_ORDERS}): ${samples.spread.statements_per_order ?? samples.spread.note}`);
    console.log(`    data: ${JSON.stringify(checks.spread)}`);
    verdict(`(a) >= ${TARGETS.spread.orders_per_s_at_least} orders/s (${results.spread.orders_per_s.toFixed(0)})`, results.spread.orders_per_s >= TARGETS.spread.orders_per_s_at_least);
    verdict(`(a) p99 <= ${TARGETS.spread.p99_ms_at_most} ms (${results.spread.p99_ms})`, results.spread.p99_ms <= TARGETS.spread.p99_ms_at_most);
  }
  if (results.hot) {
    printPart(`(b) hot card: ${HOT_CUSTOMERS} customers, 1 campaign with a pending rule, ${HOT_CONNECTIONS} connections`, results.hot);
    if (samples.hot) console.log(`    statements per order sent by the API (log sample of ${SAMPLE_ORDERS}): ${samples.hot.statements_per_order ?? samples.hot.note}`);
    console.log(`    data: ${JSON.stringify(checks.hot)}`);
    // Requests still in flight when the window closes are cut by the load generator, not failed by the API;
    // they count as failures only when the API needed longer than the p99 limit to finish them (a stall).
    const stalled = results.hot.unanswered > 0 && !(results.hot.drain_s <= 0.5) ? results.hot.unanswered : 0;
    const failed = results.hot.non2xx + results.hot.errors + results.hot.timeouts + stalled;
    verdict(`(b) no non-2xx answers, socket errors or stalled requests (${failed} of ${results.hot.requests + results.hot.unanswered})`, failed === 0 && results.hot.ok > 0);
    verdict(`(b) p99 <= ${TARGETS.hot.p99_ms_at_most} ms (${results.hot.p99_ms}; every answer ${results.hot.all.p99_ms})`, results.hot.p99_ms <= TARGETS.hot.p99_ms_at_most && results.hot.all.p99_ms <= TARGETS.hot.p99_ms_at_most);
  }
  if (results.raw) printRaw(results.raw);

  const out = join(root, 'bench/results/orders.json');
  await mkdir(dirname(out), { recursive: true });
  const pass = verdicts.every((v) => v.met);
  await writeFile(
    out,
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        commit: commit(),
        machine: info,
        load: { duration_s: DURATION, warmup_s: WARMUP, connections: { spread: CONNECTIONS, hot: HOT_CONNECTIONS, raw: CONNECTIONS }, tool: 'autocannon 9.0.0 (in process), a new body per request' },
        setup: { spread: { customers: SPREAD_CUSTOMERS, campaigns: [spreadA, spreadB] }, hot: { customers: HOT_CUSTOMERS, campaign: hot } },
        targets: TARGETS,
        spread: results.spread && { ...results.spread, data: checks.spread },
        hot: results.hot && { ...results.hot, data: checks.hot },
        raw: results.raw,
        statement_samples: samples,
        verdicts,
        pass,
        total_seconds: Number(((performance.now() - started) / 1000).toFixed(1)),
      },
      null,
      2,
    )}\n`,
  );
  console.log(`\n  results: ${out}`);
  process.exitCode = pass ? 0 : 1;
}

/** The plain node:http + pg baseline (bench/orders-raw-server.mjs) on a free port. */
async function startRaw() {
  const port = await freePort();
  const child = await startProcess(['bench/orders-raw-server.mjs'], 'listening', { ...childEnv, PORT: String(port) });
  children.push(watch(child, 'the baseline'));
  return { child, base: `http://127.0.0.1:${port}` };
}

/**
 * (c) Part (a)'s load on the API and on bench/orders-raw-server.mjs (node:http + pg, the same writes in one
 * transaction), windows A B B A on the same data and the same worker.
 */
async function rawBaseline(db, api, worker, headers, customers) {
  assertAlive('before the baseline');
  const { child: raw, base: rawBase } = await startRaw();
  try {
    const tag = `raw-${runId}`;
    const body = orders(tag, customers);
    // Both answer one order with the same shape (ids and times apart), and send as many statements per order.
    const shape = (order) => JSON.stringify({ ...order, id: order.id.slice(0, 4), source_id: typeof order.source_id, customer_id: order.customer_id.slice(0, 5), customer: { ...order.customer, id: order.customer.id.slice(0, 5) }, created_at: typeof order.created_at, updated_at: typeof order.updated_at });
    const [fromApi, fromRaw] = await Promise.all([call(api.base, headers, 'POST', '/v1/orders', JSON.parse(body())), call(rawBase, headers, 'POST', '/v1/orders', JSON.parse(body()))]);
    if (shape(fromApi) !== shape(fromRaw)) throw new Error(`the API and the baseline answer differently:\n${JSON.stringify(fromApi)}\n${JSON.stringify(fromRaw)}`);
    const sample = await statementSample(db, headers, orders(`sample-raw-${runId}`, customers), startRaw);
    // The API has served parts (a) and (b) by now; give the baseline the same chance, and both a warm-up.
    await postLoad({ base: rawBase, path: '/v1/orders', headers, seconds: Math.max(WARMUP, 2 * DURATION), connections: CONNECTIONS, body });
    await postLoad({ base: api.base, path: '/v1/orders', headers, seconds: WARMUP, connections: CONNECTIONS, body });
    assertAlive('after the baseline\'s warm-up');
    const { a, b } = await interleavedOrders(
      db,
      { a: { base: api.base, processes: { api: api.child.pid, worker: worker.pid } }, b: { base: rawBase, processes: { raw: raw.pid, worker: worker.pid } } },
      { path: '/v1/orders', headers, seconds: DURATION, connections: CONNECTIONS, body },
    );
    const check = await checkData(db, tag, 4);
    return { statement_sample: sample, method: 'part (a)\'s load, windows A B B A (A = the API, B = bench/orders-raw-server.mjs), figures = means of each side\'s two windows', api: a, baseline: b, throughput_ratio: Number((a.orders_per_s / b.orders_per_s).toFixed(3)), p99_ratio: Number((a.p99_ms / b.p99_ms).toFixed(3)), data: check };
  } finally {
    await stopChild(raw);
  }
}

function printRaw(r) {
  console.log(`  (c) the API against a plain node:http + pg server doing the same writes (part a's load, windows A B B A)`);
  for (const [label, side] of [['API', r.api], ['baseline', r.baseline]]) {
    console.log(
      `    ${label.padEnd(8)} ${side.orders_per_s.toFixed(0).padStart(5)} orders/s (windows ${side.windows.map((w) => w.orders_per_s.toFixed(0)).join(', ')}), p50 ${side.p50_ms} ms, p99 ${side.p99_ms} ms, ` +
        `statuses ${JSON.stringify(side.status_codes)}; CPU ms per order ${Object.entries(side.cpu_ms_per_order).map(([k, v]) => `${k} ${v}`).join(', ')}; ` +
        `per order ${Object.entries(side.database_per_order).map(([k, v]) => `${k} ${v}`).join(', ')}`,
    );
  }
  console.log(`    statements per order sent by the baseline (log sample of ${SAMPLE_ORDERS}): ${r.statement_sample.statements_per_order ?? r.statement_sample.note}`);
  console.log(`    API / baseline: throughput ${r.throughput_ratio}, p99 ${r.p99_ratio}; data ${JSON.stringify(r.data)}`);
}

try {
  await main();
} catch (error) {
  console.error(error);
  const log = await readFile(apiLog, 'utf8').catch(() => '');
  if (log) console.error(`API log (last 4,000 characters):\n${log.slice(-4000)}`);
  process.exitCode = 1;
} finally {
  await cleanup();
  // BENCH_KEEP_LOG=1 keeps the API's log (its path is printed).
  if (process.env.BENCH_KEEP_LOG) console.error(`API log: ${apiLog}`);
  else await rm(apiLog, { force: true });
}
