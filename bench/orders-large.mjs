// Paid orders on a large database (issue 40, "cost that does not grow with the data"): part (a) of bench/orders.mjs
// (300 customers, members of two programs with an accrual and a pending rule each: four earnings per order) on two
// databases side by side, each with its own API and worker, measured in windows S L L S:
//
//   S  set up as bench/orders.mjs sets it up;
//   L  the same, plus a program of --cards members (1,000,000: customers, members and cards, by the CLI's seed) and
//      --ledger ledger rows (10,000,000) on their cards, each card's rows summing to its balance.
//
// Target: L's orders/s and p99 within 15 % of S's. Options: --duration S (10), --warmup S (2), --connections C (32),
// --cards N, --ledger N (a multiple of 2 × --cards: each card gets additions and removals in pairs). It exits 1
// when the target is missed or a process crashes. Results: bench/results/orders-large.json.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { campaign } from './lib/api.mjs';
import { positive } from './lib/args.mjs';
import { fillLargeDatabase } from './lib/large-database.mjs';
import { drain, measureOrders, postLoad } from './lib/orders-load.mjs';
import { accrual, checkData, enrolAll, orders, pending } from './lib/orders-setup.mjs';
import { run, startApiProcess, startProcess, stopProcess } from './lib/processes.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '32' },
    cards: { type: 'string', default: '1000000' },
    ledger: { type: 'string', default: '10000000' },
  },
});
const DURATION = positive(args.duration, '--duration');
const WARMUP = positive(args.warmup, '--warmup');
const CONNECTIONS = positive(args.connections, '--connections');
const CARDS = positive(args.cards, '--cards');
const LEDGER = positive(args.ledger, '--ledger');
if (!Number.isInteger(LEDGER / CARDS / 2)) throw new Error('--ledger must be a multiple of 2 × --cards');
const CUSTOMERS = 300;
const WITHIN = 0.15;

execFileSync(process.execPath, [join(root, 'scripts/build-if-needed.mjs')], { cwd: root, stdio: 'inherit' });
const { loadConfig } = await import('../dist/config/app-config.js');
const { dropDatabase } = await import('../dist/database/ensure-database.js');
const { migrateDatabase } = await import('../dist/app/database/migrate.js');
const { deleteKeysWithPrefix } = await import('../dist/queue/redis-keys.js');

const runId = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** One side: its database, queue prefix, API log and processes. */
function sideOf(name) {
  const url = new URL(loadConfig({ DATABASE_POOLER: 'none' }).databaseUrl);
  url.pathname = `/loyalty_bench_${runId}_${name}`;
  const config = loadConfig({ DATABASE_URL: url.toString(), DATABASE_SESSION_URL: url.toString(), QUEUE_PREFIX: `loyalty_bench_${runId}_${name}` });
  const env = { ...process.env, DATABASE_URL: config.databaseUrl, DATABASE_SESSION_URL: config.databaseUrl, REDIS_URL: config.redisUrl, QUEUE_PREFIX: config.queuePrefix, RATE_LIMIT_PER_SECOND: '1000000' };
  delete env.BOOTSTRAP_APP_ID;
  delete env.BOOTSTRAP_APP_TOKEN;
  return { name, config, env, log: join(os.tmpdir(), `loyalty-bench-${runId}-${name}-api.log`), children: [], windows: [] };
}
const sides = { S: sideOf('s'), L: sideOf('l') };

/** Migrates, makes a project, starts the API and the worker, and sets up part (a)'s campaigns and members. */
async function setUp(side) {
  await migrateDatabase(side.config);
  const project = JSON.parse(await run(process.execPath, ['dist/cli.js', 'create-project', '--name', `bench orders ${side.name} ${runId}`], side.env));
  side.headers = { 'x-app-id': project.app_id, 'x-app-token': project.app_token };
  side.api = await startApiProcess({ env: side.env, log: side.log });
  side.children.push(side.api.child);
  side.worker = await startProcess(['dist/worker.js'], 'Worker ready', side.env);
  side.children.push(side.worker);
  const a = await campaign(side.api, side.headers, `Spread A ${runId}`, [accrual(10), pending(5)]);
  const b = await campaign(side.api, side.headers, `Spread B ${runId}`, [accrual(10), pending(5)]);
  side.customers = Array.from({ length: CUSTOMERS }, (_, i) => `bench-spread-${i}`);
  await enrolAll(side.api, side.headers, side.customers, [a.program_id, b.program_id]);
  side.db = new pg.Client({ connectionString: side.config.databaseUrl });
  await side.db.connect();
}

const secs = (from, to) => Number(((to - from) / 1000).toFixed(1));
const mean = (values) => Number((values.reduce((sum, v) => sum + v, 0) / values.length).toFixed(1));

async function main() {
  const started = performance.now();
  await Promise.all([setUp(sides.S), setUp(sides.L)]);
  console.log(`set up: two databases, each with 2 campaigns and ${CUSTOMERS} customers in both programs`);
  const filled = await fillLargeDatabase({ db: sides.L.db, env: sides.L.env, cards: CARDS, ledger: LEDGER });
  console.log(`L filled: ${JSON.stringify(filled)}`);
  for (const side of Object.values(sides)) {
    await side.db.query('VACUUM (ANALYZE)');
    await side.db.query('CHECKPOINT').catch(() => undefined);
    side.body = orders(`large-${side.name}-${runId}`, side.customers);
    await postLoad({ base: side.api.base, path: '/v1/orders', headers: side.headers, seconds: WARMUP, connections: CONNECTIONS, body: side.body });
    await drain(side.db);
  }
  for (const name of ['S', 'L', 'L', 'S']) {
    const side = sides[name];
    for (const child of side.children) if (child.exitCode !== null) throw new Error(`a process of side ${name} exited (${child.exitCode})`);
    side.windows.push(await measureOrders(side.db, { api: side.api.child.pid, worker: side.worker.pid }, { base: side.api.base, path: '/v1/orders', headers: side.headers, seconds: DURATION, connections: CONNECTIONS, body: side.body }));
    await drain(side.db);
  }
  const result = {};
  for (const [name, side] of Object.entries(sides)) {
    const w = side.windows;
    result[name] = {
      orders_per_s: mean(w.map((r) => r.orders_per_s)),
      p50_ms: mean(w.map((r) => r.p50_ms)),
      p99_ms: mean(w.map((r) => r.p99_ms)),
      non2xx: w.reduce((sum, r) => sum + r.non2xx + r.errors + r.timeouts, 0),
      cpu_ms_per_order: Object.fromEntries(Object.keys(w[0].cpu_ms_per_order).map((k) => [k, Number(((w[0].cpu_ms_per_order[k] + w[1].cpu_ms_per_order[k]) / 2).toFixed(3))])),
      windows: w.map((r) => ({ orders_per_s: r.orders_per_s, p50_ms: r.p50_ms, p99_ms: r.p99_ms, non2xx: r.non2xx })),
      data: await checkData(side.db, `large-${side.name}-${runId}`, 4),
    };
  }
  const throughput = Number((result.L.orders_per_s / result.S.orders_per_s).toFixed(3));
  const p99 = Number((result.L.p99_ms / result.S.p99_ms).toFixed(3));
  const met = throughput >= 1 - WITHIN && p99 <= 1 + WITHIN && result.S.non2xx + result.L.non2xx === 0;
  console.log(`\npaid orders, part (a)'s load (${CONNECTIONS} connections), windows S L L S of ${DURATION} s; load average ${os.loadavg().map((v) => v.toFixed(2)).join(' ')}`);
  for (const name of ['S', 'L']) {
    const r = result[name];
    console.log(`  ${name}: ${r.orders_per_s} orders/s (windows ${r.windows.map((w) => w.orders_per_s).join(', ')}), p50 ${r.p50_ms} ms, p99 ${r.p99_ms} ms, non-2xx ${r.non2xx}; CPU ms per order ${JSON.stringify(r.cpu_ms_per_order)}; data ${JSON.stringify(r.data)}`);
  }
  console.log(`  L / S: throughput ${throughput}, p99 ${p99}`);
  console.log(`    ${met ? 'MET' : 'MISSED'}: L's orders/s and p99 within ${WITHIN * 100} % of S's, no non-2xx answer`);
  const out = join(root, 'bench/results/orders-large.json');
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, `${JSON.stringify({ date: new Date().toISOString(), cards: CARDS, ledger: LEDGER, filled, duration_s: DURATION, connections: CONNECTIONS, S: result.S, L: result.L, ratio: { throughput, p99 }, met, total_seconds: secs(started, performance.now()) }, null, 2)}\n`);
  console.log(`  results: ${out}`);
  process.exitCode = met ? 0 : 1;
}

try {
  await main();
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  for (const side of Object.values(sides)) {
    for (const child of side.children) await Promise.race([stopProcess(child), sleep(30_000)]);
    await side.db?.end().catch(() => undefined);
    await dropDatabase(side.config.databaseUrl).catch((error) => console.error(error));
    await deleteKeysWithPrefix(side.config.redisUrl, side.config.queuePrefix).catch((error) => console.error(error));
    if (!process.env.BENCH_KEEP_LOG) await rm(side.log, { force: true });
  }
}
