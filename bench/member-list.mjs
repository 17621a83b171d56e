// Member list benchmark (issue "Performance"): GET /v2/loyalties/programs/{programId}/members on a program
// of 1,000,000 members, first page, a page 500,000 members deep and filtered/ordered variants, at 16
// concurrent clients. Target: p99 under 25 ms for every variant, and the deep page within 20% of the
// first. It runs against the compiled service (`npm run bench` builds first), on the local PostgreSQL and
// Redis, in a database and queue prefix of its own that are removed afterwards:
//
//   1. migrate a fresh database, then seed it with `node dist/cli.js seed --members N` (SQL bulk insert);
//   2. start the API as production runs it (`node dist/main.js`, default LOG_LEVEL info, log to a file);
//   3. walk the list with limit=100 to a cursor N/2 members deep (default order, and order=customer_id);
//   4. per variant: a checked request, a warm-up, then autocannon at CONNECTIONS connections for DURATION s.
//
//   5. the API against a plain node:http + pg server doing the same work (bench/member-list-raw-server.mjs:
//      same SQL, key check, cursor signing and JSON), on the first page, the deep page and limit=100, in
//      interleaved windows A B B A so machine noise hits both; both must first answer the same data;
//   6. the rate limiter's cost: the first page on this API (limiter on, at a rate it never reaches) and on a
//      second API with RATE_LIMIT_PER_SECOND=0, also in windows A B B A;
//   5b. the API against a minimal NestJS server doing the same work (bench/member-list-nest-server.mjs: the same
//      key check, page code and pool as the plain baseline, served by one Nest controller on Express), on the
//      same three pages, windows A B B A (issue 40: throughput ≥ 0.9 of it on every page);
//   7. the write paths against the same baseline, windows A B B A (figures only: the targets are the list's):
//      POST /v2/loyalties/programs/{id}/members, a new customer each time, and the manual activation of a
//      different PENDING entry each time (60,000 made, one per member, due in a day).
//
// Options: --members N (default 1000000), --duration S (8), --warmup S (2), --connections C (16),
// --parts variants,raw,nest,limiter,write (which of steps 4 to 7 to run; all by default). BENCH_API_NODE_ARGS passes
// options to the API's `node` (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"), BENCH_BASELINE_NODE_ARGS to the baselines'.
// Every response must be 200; any other status or a socket error fails the run (exit 1), and so does a
// missed target. Results go to bench/results/member-list.json.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { freePort, run, startApiProcess, startProcess } from './lib/processes.mjs';
import { positive } from './lib/args.mjs';
import { load as loadRun, measure as measureRun } from './lib/http-load.mjs';
import { limiterCost, NEST_TARGETS, nestBaseline, printRawBaseline, RAW_TARGETS, rawBaseline } from './lib/member-list-sides.mjs';
import { activationBaseline, enrolBaseline, makePendingEntries } from './lib/write-paths.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    members: { type: 'string', default: '1000000' },
    duration: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '16' },
    parts: { type: 'string', default: 'variants,raw,nest,limiter,write' },
  },
});
const MEMBERS = positive(args.members, '--members');
const DURATION = positive(args.duration, '--duration');
const WARMUP = args.warmup === '0' ? 0 : positive(args.warmup, '--warmup');
const CONNECTIONS = positive(args.connections, '--connections');
const PARTS = new Set(args.parts.split(',').filter(Boolean));
for (const part of PARTS) if (!['variants', 'raw', 'nest', 'limiter', 'write'].includes(part)) throw new Error(`--parts takes variants, raw, nest, limiter and write; got '${part}'`);
const PAGE = 10;
const WALK_PAGE = 100;
const DEEP = Math.floor(MEMBERS / 2);
const P99_LIMIT_MS = 25;
const DEEP_RATIO_LIMIT = 1.2;
/** PENDING entries made for the manual activation part, one per request, at most one per member. */
const PENDING_ENTRIES = 60_000;

// dist/ must match the sources (a no-op when it does); `npm run bench` has built already.
execFileSync(process.execPath, [join(root, 'scripts/build-if-needed.mjs')], { cwd: root, stdio: 'inherit' });
const { loadConfig } = await import('../dist/config/app-config.js');
const { dropDatabase } = await import('../dist/database/ensure-database.js');
const { migrateDatabase } = await import('../dist/app/database/migrate.js');
const { deleteKeysWithPrefix } = await import('../dist/queue/redis-keys.js');

const runId = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
const url = new URL(loadConfig().databaseUrl);
url.pathname = `/loyalty_bench_${runId}`;
const config = loadConfig({ DATABASE_URL: url.toString(), QUEUE_PREFIX: `loyalty_bench_${runId}`, LOG_LEVEL: 'warn' });
const childEnv = { ...process.env, DATABASE_URL: config.databaseUrl, REDIS_URL: config.redisUrl, QUEUE_PREFIX: config.queuePrefix };
delete childEnv.BOOTSTRAP_APP_ID;
delete childEnv.BOOTSTRAP_APP_TOKEN;
const apiLog = join(os.tmpdir(), `loyalty-bench-${runId}-api.log`);

// The limiter stays on (its script runs for every request) at a rate the load never reaches: the default
// 300 a second would answer most of the load with 429.
const RATE_LIMIT_ON = '1000000';

let api = null;
const apis = [];
let cleaned = false;

async function cleanup() {
  if (cleaned) return;
  cleaned = true;
  for (const child of apis) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(30_000)]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  await dropDatabase(config.databaseUrl);
  await deleteKeysWithPrefix(config.redisUrl, config.queuePrefix);
}

process.once('SIGINT', () => {
  console.error('\ninterrupted: stopping the API, dropping the database');
  cleanup().catch((error) => console.error(error)).finally(() => process.exit(130));
});

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function startApi(port, env = {}) {
  const { child } = await startApiProcess({ env: { ...childEnv, RATE_LIMIT_PER_SECOND: RATE_LIMIT_ON, ...env }, log: apiLog, nodeArgs: process.env.BENCH_API_NODE_ARGS?.split(' ').filter(Boolean), port });
  apis.push(child);
  return child;
}

/** The plain node:http + pg baseline (bench/member-list-raw-server.mjs) on a free port. */
async function startRaw(script = 'bench/member-list-raw-server.mjs') {
  const port = await freePort();
  const child = await startProcess([...(process.env.BENCH_BASELINE_NODE_ARGS?.split(' ').filter(Boolean) ?? []), script], 'listening', { ...childEnv, PORT: String(port) });
  apis.push(child);
  return { child, base: `http://127.0.0.1:${port}` };
}

/** The Postgres, Redis and Node versions and the CPU, for the figures. */
async function machine() {
  const client = new pg.Client({ connectionString: config.databaseUrl });
  await client.connect();
  try {
    const [{ server_version: postgres }] = (await client.query('SHOW server_version')).rows;
    const settings = (await client.query(`SELECT name, setting, unit FROM pg_settings WHERE name IN ('shared_buffers', 'work_mem', 'effective_cache_size', 'jit')`)).rows;
    return {
      cpu: os.cpus()[0]?.model ?? 'unknown',
      cores: os.cpus().length,
      memory_gib: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      postgres,
      postgres_settings: Object.fromEntries(settings.map((s) => [s.name, s.unit ? `${s.setting} × ${s.unit}` : s.setting])),
    };
  } finally {
    await client.end();
  }
}

async function main() {
  const started = performance.now();
  await migrateDatabase(config);

  console.log(`seeding ${MEMBERS.toLocaleString('en')} members (node dist/cli.js seed)…`);
  const seedStarted = performance.now();
  const seeded = JSON.parse((await run(process.execPath, ['dist/cli.js', 'seed', '--members', String(MEMBERS), '--project-name', 'bench'], childEnv)).trim().split('\n').at(-1));
  const seedWallSeconds = (performance.now() - seedStarted) / 1000;
  console.log(`seeded in ${seeded.seconds} s (CLI wall time ${seedWallSeconds.toFixed(1)} s)`);

  const port = await freePort();
  api = await startApi(port);
  const base = `http://127.0.0.1:${port}`;
  const headers = { 'x-app-id': seeded.app_id, 'x-app-token': seeded.app_token };
  const listPath = `/v2/loyalties/programs/${seeded.program_id}/members`;
  const pathOf = (params) => `${listPath}?${new URLSearchParams(params).toString()}`;

  async function get(params) {
    const response = await fetch(base + pathOf(params), { headers });
    const body = await response.json();
    if (response.status !== 200) throw new Error(`GET ${pathOf(params)} answered ${response.status}: ${JSON.stringify(body)}`);
    return body;
  }

  /** Pages with limit=100 until `DEEP` members are behind; returns that cursor and what it saw on the way. */
  async function walk(params) {
    const pages = Math.ceil(DEEP / WALK_PAGE);
    const picked = [];
    const walkStarted = performance.now();
    let cursor = null;
    let last = null;
    for (let i = 0; i < pages; i += 1) {
      const body = await get([...params, ['limit', String(WALK_PAGE)], ...(cursor ? [['cursor', cursor]] : [])]);
      if (body.data.length !== WALK_PAGE || !body.cursor) throw new Error(`walk: page ${i + 1} had ${body.data.length} members and cursor ${body.cursor}`);
      if (i % Math.max(1, Math.floor(pages / 5)) === 0 && picked.length < 5) picked.push(body.data[0].customer_id);
      cursor = body.cursor.next;
      last = body.data.at(-1);
    }
    const ms = performance.now() - walkStarted;
    return { cursor, last, picked, pages, ms };
  }

  console.log(`walking ${DEEP.toLocaleString('en')} members deep with limit=${WALK_PAGE} (default order)…`);
  const deep = await walk([]);
  console.log(`  ${deep.pages} pages in ${(deep.ms / 1000).toFixed(1)} s (${(deep.ms / deep.pages).toFixed(2)} ms a page, one client)`);
  console.log(`walking ${DEEP.toLocaleString('en')} members deep with limit=${WALK_PAGE} (order=customer_id)…`);
  const deepCustomer = await walk([['order', 'customer_id']]);
  console.log(`  ${deepCustomer.pages} pages in ${(deepCustomer.ms / 1000).toFixed(1)} s (${(deepCustomer.ms / deepCustomer.pages).toFixed(2)} ms a page, one client)`);

  const middle = deep.last.created_at;
  const someCustomers = deep.picked;
  const limit = ['limit', String(PAGE)];
  const variants = [
    { name: 'first page (default -created_at)', key: 'first', params: [limit] },
    { name: `deep page (${DEEP.toLocaleString('en')} in, default order)`, key: 'deep', params: [limit, ['cursor', deep.cursor]] },
    { name: 'status $is INACTIVE', key: 'status_inactive', params: [limit, ['filters[status][conditions][$is]', 'INACTIVE']] },
    { name: 'order=status&order=-created_at', key: 'order_status_created', params: [limit, ['order', 'status'], ['order', '-created_at']] },
    { name: 'order=customer_id', key: 'order_customer', params: [limit, ['order', 'customer_id']] },
    { name: `deep page (${DEEP.toLocaleString('en')} in, order=customer_id)`, key: 'deep_customer', params: [limit, ['order', 'customer_id'], ['cursor', deepCustomer.cursor]] },
    {
      name: 'created_at $before middle, order=created_at',
      key: 'before_middle_asc',
      params: [limit, ['filters[created_at][conditions][$before]', middle], ['order', 'created_at']],
    },
    {
      name: 'OR: status INACTIVE | customer_id $in 5',
      key: 'or_status_customers',
      params: [
        limit,
        ['filters[junction]', 'OR'],
        ['filters[status][conditions][$is]', 'INACTIVE'],
        ...someCustomers.map((id) => ['filters[customer_id][conditions][$in][]', id]),
      ],
    },
  ];

  // One checked request per variant: 200, a full page, and the page obeys its filter and order.
  for (const variant of variants) {
    const body = await get(variant.params);
    if (body.data.length !== PAGE) throw new Error(`${variant.name}: expected ${PAGE} members, got ${body.data.length}`);
    check(variant, body.data, { middle, someCustomers, deep });
  }

  const db = new pg.Client({ connectionString: config.databaseUrl });
  await db.connect();
  const results = [];
  let limiter = null;
  let raw = null;
  let nest = null;
  let write = null;
  try {
    // Write out what the seed and the walks left dirty now, not during a measured run.
    await db.query('CHECKPOINT').catch(() => undefined);
    // The walks above warm the API up at full size; a short run under load also covers small --members runs.
    if (WARMUP > 0) await load(base, pathOf(variants[0].params), headers, 3);
    for (const variant of PARTS.has('variants') ? variants : []) {
      const path = pathOf(variant.params);
      if (WARMUP > 0) await load(base, path, headers, WARMUP);
      const { server_cpu_ms_per_request: apiCpu, ...measured } = await measureRun(db, api.pid, { base, path, headers, seconds: DURATION, connections: CONNECTIONS });
      const row = { variant: variant.name, key: variant.key, path, ...measured, api_cpu_ms_per_request: apiCpu };
      results.push(row);
      console.log(
        `  ${row.variant.padEnd(48)} p50 ${row.p50_ms.toFixed(2).padStart(6)} ms  p99 ${row.p99_ms.toFixed(2).padStart(6)} ms  ${row.rps.toFixed(0).padStart(5)} req/s  non-2xx ${row.non2xx}` +
          (row.api_cpu_ms_per_request === null ? '' : `  CPU per request: API ${row.api_cpu_ms_per_request} ms, PostgreSQL ${row.postgres_cpu_ms_per_request} ms`),
      );
    }
    const sides = { db, api, base, headers, seconds: DURATION, warmup: WARMUP, connections: CONNECTIONS, startApi: async (env) => {
        const port = await freePort();
        return { child: await startApi(port, env), port };
      },
      startRaw: () => startRaw(),
      startNest: () => startRaw('bench/member-list-nest-server.mjs'),
    };
    const baselinePages = [
      { key: 'first', name: 'first page', path: pathOf(variants[0].params) },
      { key: 'deep', name: `deep page (${DEEP.toLocaleString('en')} in)`, path: pathOf(variants[1].params) },
      { key: 'limit_100', name: 'first page, limit=100', path: pathOf([['limit', '100']]) },
    ];
    if (PARTS.has('raw')) raw = await rawBaseline(sides, baselinePages);
    if (PARTS.has('nest')) nest = await nestBaseline(sides, baselinePages);
    if (PARTS.has('limiter')) limiter = await limiterCost(sides, pathOf(variants[0].params));
    if (PARTS.has('write')) {
      // Made first: the enrolments add cards to the campaign.
      const entries = await makePendingEntries(db, seeded, Math.min(MEMBERS, PENDING_ENTRIES));
      write = { enrolment: await enrolBaseline(sides, listPath), activation: await activationBaseline(sides, entries) };
    }
  } finally {
    await db.end();
  }

  const byKey = Object.fromEntries(results.map((r) => [r.key, r]));
  const ratio = results.length ? byKey.deep.p99_ms / byKey.first.p99_ms : NaN;
  const ratioCustomer = results.length ? byKey.deep_customer.p99_ms / byKey.order_customer.p99_ms : NaN;
  const failedRequests = results.filter((r) => r.non2xx > 0 || r.errors > 0 || r.timeouts > 0);
  const slow = results.filter((r) => r.p99_ms >= P99_LIMIT_MS);

  const info = await machine();
  console.log(`\nmember list, ${MEMBERS.toLocaleString('en')} members, ${CONNECTIONS} connections, ${DURATION} s per window after a ${WARMUP} s warm-up`);
  console.log(`${info.cpu}, ${info.cores} cores, ${info.memory_gib} GiB, PostgreSQL ${info.postgres}, Node ${info.node}; seed ${seeded.seconds} s\n`);
  let pass = true;
  if (results.length) {
    const table = [['variant', 'p50 ms', 'p99 ms', 'req/s', 'non-2xx'], ...results.map((r) => [r.variant, r.p50_ms.toFixed(2), r.p99_ms.toFixed(2), r.rps.toFixed(0), String(r.non2xx + r.errors + r.timeouts)])];
    const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)));
    for (const [i, row] of table.entries()) {
      console.log(`  ${row.map((cell, j) => (j === 0 ? cell.padEnd(widths[j]) : cell.padStart(widths[j]))).join('  ')}`);
      if (i === 0) console.log(`  ${widths.map((w) => '-'.repeat(w)).join('  ')}`);
    }
    console.log(`\n  deep / first p99 = ${ratio.toFixed(2)} (limit ${DEEP_RATIO_LIMIT}); deep / first p99 for order=customer_id = ${ratioCustomer.toFixed(2)}`);
    pass = failedRequests.length === 0 && slow.length === 0 && ratio <= DEEP_RATIO_LIMIT;
    if (failedRequests.length) console.log(`  FAIL: non-2xx responses or errors in ${failedRequests.map((r) => r.variant).join('; ')}`);
    if (slow.length) console.log(`  FAIL: p99 >= ${P99_LIMIT_MS} ms in ${slow.map((r) => r.variant).join('; ')}`);
    if (ratio > DEEP_RATIO_LIMIT) console.log(`  FAIL: deep page p99 is ${ratio.toFixed(2)}× the first page's`);
    if (pass) console.log(`  PASS: every p99 < ${P99_LIMIT_MS} ms, deep / first ${ratio.toFixed(2)} <= ${DEEP_RATIO_LIMIT}`);
  }
  if (raw) pass = printRawBaseline(raw) && pass;
  if (nest) pass = printRawBaseline(nest, 'the API against a minimal NestJS server doing the same work (windows A B B A; target: throughput ≥ 0.9)', true, NEST_TARGETS) && pass;
  if (write) printRawBaseline({ pages: [...write.enrolment.pages, ...write.activation.pages] }, 'the write paths against the same baseline (windows A B B A; figures only)', false);
  if (limiter) {
    console.log(
      `\n  rate limiter (first page, windows A B B A, ${DURATION} s each): on ${limiter.on.rps.toFixed(0)} req/s, p99 ${limiter.on.p99_ms} ms, API CPU ${limiter.on.server_cpu_ms_per_request} ms/request; ` +
        `off ${limiter.off.rps.toFixed(0)} req/s, p99 ${limiter.off.p99_ms} ms, API CPU ${limiter.off.server_cpu_ms_per_request} ms/request; on / off throughput ${limiter.throughput_on_over_off}`,
    );
  }

  const out = join(root, 'bench/results/member-list.json');
  await mkdir(dirname(out), { recursive: true });
  await writeFile(
    out,
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        machine: info,
        members: MEMBERS,
        parts: [...PARTS],
        seed: { seconds: seeded.seconds, cli_wall_seconds: Number(seedWallSeconds.toFixed(2)) },
        walks: {
          default_order: { pages: deep.pages, limit: WALK_PAGE, seconds: Number((deep.ms / 1000).toFixed(2)) },
          customer_id: { pages: deepCustomer.pages, limit: WALK_PAGE, seconds: Number((deepCustomer.ms / 1000).toFixed(2)) },
        },
        load: { connections: CONNECTIONS, duration_s: DURATION, warmup_s: WARMUP, limit: PAGE, tool: 'autocannon 9.0.0 (in process), latencies from its per-response timings' },
        targets: { p99_ms_below: P99_LIMIT_MS, deep_over_first_p99_at_most: DEEP_RATIO_LIMIT, raw_baseline: RAW_TARGETS, nest_baseline: NEST_TARGETS },
        variants: results,
        deep_over_first_p99: Number(ratio.toFixed(3)),
        deep_over_first_p99_customer_id: Number(ratioCustomer.toFixed(3)),
        raw_baseline: raw,
        nest_baseline: nest,
        write_baseline: write,
        rate_limiter: limiter,
        pass,
        total_seconds: Number(((performance.now() - started) / 1000).toFixed(1)),
      },
      null,
      2,
    )}\n`,
  );
  console.log(`  results: ${out}`);
  process.exitCode = pass ? 0 : 1;
}

const load = (base, path, headers, seconds) => loadRun({ base, path, headers, seconds, connections: CONNECTIONS });

/** What each variant's page must look like, so a fast wrong answer cannot pass. */
function check(variant, data, { middle, someCustomers, deep }) {
  const fail = (why) => {
    throw new Error(`${variant.name}: ${why}`);
  };
  const created = (m) => Date.parse(m.created_at);
  const pairs = data.slice(1).map((m, i) => [data[i], m]);
  const byCreatedDesc = ([a, b]) => created(a) > created(b) || (created(a) === created(b) && a.id > b.id);
  switch (variant.key) {
    case 'first':
    case 'deep':
      if (!pairs.every(byCreatedDesc)) fail('not in -created_at, -id order');
      if (variant.key === 'deep' && !(created(data[0]) <= created(deep.last))) fail('does not continue after the cursor');
      break;
    case 'status_inactive':
      if (!data.every((m) => m.status === 'INACTIVE')) fail('has a member that is not INACTIVE');
      if (!pairs.every(byCreatedDesc)) fail('not in -created_at order');
      break;
    case 'order_status_created':
      if (data[0].status !== 'ACTIVE' || !pairs.every((p) => p[0].status === p[1].status && byCreatedDesc(p))) fail('not in status, -created_at order');
      break;
    case 'order_customer':
    case 'deep_customer':
      if (!pairs.every(([a, b]) => a.customer_id < b.customer_id)) fail('not in customer_id order');
      break;
    case 'before_middle_asc':
      if (!data.every((m) => created(m) < Date.parse(middle))) fail('has a member created after the middle');
      if (!pairs.every(([a, b]) => created(a) < created(b) || (created(a) === created(b) && a.id < b.id))) fail('not in created_at order');
      break;
    case 'or_status_customers':
      if (!data.every((m) => m.status === 'INACTIVE' || someCustomers.includes(m.customer_id))) fail('has a member matching neither condition');
      if (!pairs.every(byCreatedDesc)) fail('not in -created_at order');
      break;
  }
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
  await rm(apiLog, { force: true });
}
