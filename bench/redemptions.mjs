// Redemptions benchmark: POST /v1/loyalties/{campaignId}/members/{memberId}/redemption (a MATERIAL reward, each
// request a new redemption), on the compiled API (`node dist/main.js`) with the worker (`node dist/worker.js`)
// running, in a database and queue prefix of its own that are removed afterwards:
//
//   (a) spread: 300 cards of one loyalty campaign, each with 6 point buckets of 50 points, each bucket with
//       its own last day (30, 60, … 150 days ahead, the last never expiring); a reward of unlimited stock
//       offered at 7 points. --connections clients (32), the card of each request taken round-robin: a
//       redemption drains the soonest-expiring bucket, often two.
//   (b) hot card: 20 clients (fixed) on one card (1,000,000 points, 3 dated buckets) and one reward with a
//       limited stock (--hot-stock, 100): the stock runs out during the window, the rest must be answered
//       400 `quantity_exceeded`, never oversold, never a 5xx.
//
// Per part: redemptions/s (2xx), p50/p99 latency, the status histogram, CPU ms per redemption of the API, the
// worker and PostgreSQL (this database's backends; and every postgres process of the machine, other work
// included), transactions and rows per redemption (pg_stat_database), the statements the API sends per
// redemption (a short sample with log_statement = all, bench/lib/statement-log.mjs), and checks of the data:
// every card's balance = Σ its ledger = Σ the points left in its ACTIVE buckets, the reward's `redeemed` = its
// SUCCEEDED redemptions, and (b) `redeemed` never above the stock; and where the sessions wait for a lock (the
// card's row, the reward's row: bench/lib/lock-waits.mjs).
//
//   (c) raw: part (a)'s load on the API and on a plain node:http + pg server sending the API's statements (from
//       dist/) in the same transaction (bench/redemptions-raw-server.mjs), windows A B B A (the method of
//       bench/orders.mjs), on 300 cards of their own with 6 buckets of 250 points (the windows spend more).
//
// Options: --duration S (10), --warmup S (2), --connections C (32; part b uses 20), --parts spread,hot,raw,
// --hot-stock N (100). A crash exits 1; so does a missed target ((a) >= 0.8 of the baseline's redemptions/s
// (part c) and p99 <= 200 ms; (b) no 5xx, no oversell, p99 <= 500 ms). Results: bench/results/redemptions.json.
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
import { positive } from './lib/args.mjs';
import { sampleStatements } from './lib/statement-log.mjs';
import { sampleLockWaits } from './lib/lock-waits.mjs';
import { apiWarnings, drain, histogram, measureOrders, perBatch, postLoad } from './lib/orders-load.mjs';
import { checkData, dayAhead, enrolAll, fill, redemptions, reward } from './lib/redemptions-setup.mjs';
import { printRaw, rawBaseline } from './lib/redemptions-raw.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '32' },
    parts: { type: 'string', default: 'spread,hot,raw' },
    'hot-stock': { type: 'string', default: '100' },
  },
});
const DURATION = positive(args.duration, '--duration');
const WARMUP = args.warmup === '0' ? 0 : positive(args.warmup, '--warmup');
const CONNECTIONS = positive(args.connections, '--connections');
const PARTS = new Set(args.parts.split(',').filter(Boolean));
for (const part of PARTS) if (!['spread', 'hot', 'raw'].includes(part)) throw new Error(`--parts takes spread, hot and raw; got '${part}'`);
const HOT_STOCK = positive(args['hot-stock'], '--hot-stock');
const SPREAD_CARDS = 300;
// Each spread card's points: BUCKETS additions of BUCKET_POINTS, each with its own last day (the last never expiring).
const BUCKETS = 6;
const BUCKET_POINTS = 50;
const SPREAD_PRICE = 7;
// Part (c)'s cards: as many, with bigger buckets (its six windows and warm-ups spend about five times what (a) does).
const RAW_BUCKET_POINTS = 250;
const HOT_CONNECTIONS = 20;
const HOT_POINTS = 1_000_000;
const SAMPLE_REDEMPTIONS = 20;
const TARGETS = { spread: { p99_ms_at_most: 200, ratio_to_baseline_at_least: 0.8 }, hot: { http_5xx: 0, oversold: 0, p99_ms_at_most: 500 } };

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

/** The statements the API sends per redemption: a new API process, 3 redemptions to warm it, then SAMPLE_REDEMPTIONS one at a time. */
function statementSample(db, headers, next, start = startApi) {
  return sampleStatements({
    db,
    dbName,
    orders: SAMPLE_REDEMPTIONS,
    start,
    stop: (api) => stopChild(api.child),
    send: (api) => {
      const { path, body } = next();
      return call(api.base, headers, 'POST', path, JSON.parse(body));
    },
  });
}

/** A measured window of a part: the load, then the API's warnings during it and the time to drain. */
async function window(db, processes, run) {
  assertAlive('before a measured window');
  const from = (await stat(apiLog).catch(() => ({ size: 0 }))).size;
  const waits = await sampleLockWaits(config.databaseUrl);
  const before = await histogram(run.base, 'loyalty_redemption_batch_size');
  const measured = await measureOrders(db, processes, run);
  const lockWaits = await waits.stop();
  assertAlive('during a measured window');
  const drained = await drain(db);
  await sleep(200);
  const batches = perBatch(before, await histogram(run.base, 'loyalty_redemption_batch_size'));
  const { orders_per_s: perSecond, cpu_ms_per_order: cpu, database_per_order: perRedemption, ...rest } = measured;
  return { ...rest, redemptions_per_s: perSecond, cpu_ms_per_redemption: cpu, database_per_redemption: perRedemption, lock_waits: lockWaits, drain_s: drained, api_warnings: await apiWarnings(apiLog, from), batches };
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
  const cpu = Object.entries(r.cpu_ms_per_redemption).map(([k, v]) => `${k} ${v}`).join(', ');
  console.log(`  ${label}`);
  console.log(`    ${r.redemptions_per_s.toFixed(0)} redemptions/s (2xx), p50 ${r.p50_ms} ms, p99 ${r.p99_ms} ms (2xx); all answers p50 ${r.all.p50_ms} p99 ${r.all.p99_ms} ms; ${r.requests} requests`);
  console.log(`    statuses ${JSON.stringify(r.status_codes)}, socket errors ${r.errors}, timeouts ${r.timeouts}, unanswered at the window's end ${r.unanswered}${r.drain_s >= 30 ? ' (still not drained after 30 s)' : ` (drained in ${r.drain_s} s)`}`);
  if (r.api_warnings && Object.keys(r.api_warnings).length) console.log(`    API log, warn and above: ${Object.entries(r.api_warnings).map(([k, n]) => `${n} × ${k}`).join('; ')}`);
  console.log(`    CPU ms per redemption (2xx): ${cpu}`);
  if (r.batches?.per_batch) console.log(`    redemptions per batch (the API's loyalty_redemption_batch_size): ${r.batches.per_batch} on average, ${r.batches.batches} batches`);
  console.log(`    sessions in a transaction, mean ${r.lock_waits.sessions_busy_mean}; waiting for a lock, mean: ${JSON.stringify(r.lock_waits.waiting_for_a_lock_mean)} (${r.lock_waits.samples} samples, bench/lib/lock-waits.mjs)`);
  console.log(`    per redemption (pg_stat_database): ${Object.entries(r.database_per_redemption).map(([k, v]) => `${k} ${v}`).join(', ')}; deadlocks ${r.database.deadlocks}`);
}

const fivexx = (r) => Object.entries(r.status_codes).reduce((n, [code, count]) => n + (Number(code) >= 500 ? count : 0), 0);

async function main() {
  const started = performance.now();
  await migrateDatabase(config);
  const project = JSON.parse(await run(process.execPath, ['dist/cli.js', 'create-project', '--name', `bench redemptions ${runId}`], childEnv));
  const headers = { 'x-app-id': project.app_id, 'x-app-token': project.app_token };

  const api = await startApi();
  const worker = await startProcess(['dist/worker.js'], 'Worker ready', childEnv);
  children.push(watch(worker, 'the worker'));

  const setupStarted = performance.now();
  const spread = await campaign(api, headers, `Spread ${runId}`);
  const hot = await campaign(api, headers, `Hot ${runId}`);
  const spreadCodes = await enrolAll(api, headers, spread.program_id, Array.from({ length: SPREAD_CARDS }, (_, i) => `bench-spread-${i}`));
  const [hotCode] = await enrolAll(api, headers, hot.program_id, ['bench-hot-0']);
  const spreadDates = [...Array.from({ length: BUCKETS - 1 }, (_, i) => dayAhead(30 * (i + 1))), null];
  await fill(api, headers, spread.id, spreadCodes, BUCKET_POINTS, spreadDates);
  await fill(api, headers, hot.id, [hotCode], HOT_POINTS / 4, [dayAhead(20), dayAhead(40), dayAhead(80), null]);
  const spreadReward = await reward(api, headers, `spread_${runId}`, spread.id, SPREAD_PRICE, null);
  const hotReward = await reward(api, headers, `hot_${runId}`, hot.id, 1, HOT_STOCK);
  // The samples spend from a card of their own, so the measured parts start from the state set up here.
  const [sampleCode, rawSampleCode] = await enrolAll(api, headers, spread.program_id, ['bench-sample-0', 'bench-sample-raw-0']);
  await fill(api, headers, spread.id, [sampleCode, rawSampleCode], 1000, [dayAhead(30), null]);
  const rawCodes = PARTS.has('raw') ? await enrolAll(api, headers, spread.program_id, Array.from({ length: SPREAD_CARDS }, (_, i) => `bench-raw-${i}`)) : [];
  await fill(api, headers, spread.id, rawCodes, RAW_BUCKET_POINTS, spreadDates);
  console.log(`set up: ${SPREAD_CARDS} cards × ${BUCKETS} buckets of ${BUCKET_POINTS} points, 1 hot card, 2 rewards${rawCodes.length ? `, ${rawCodes.length} cards × ${BUCKETS} buckets of ${RAW_BUCKET_POINTS} points for (c)` : ''}, in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s`);

  const db = new pg.Client({ connectionString: config.databaseUrl });
  await db.connect();
  const results = { spread: null, hot: null, raw: null };
  const checks = {};
  let sample;
  let info;
  try {
    await db.query('VACUUM (ANALYZE)');
    await db.query('CHECKPOINT').catch(() => undefined);
    info = await machine(db);
    const processes = { api: api.child.pid, worker: worker.pid };
    sample = await statementSample(db, headers, redemptions(spread.id, [sampleCode], spreadReward));

    if (PARTS.has('spread')) {
      const next = redemptions(spread.id, spreadCodes, spreadReward);
      if (WARMUP > 0) await postLoad({ base: api.base, path: '/', headers, seconds: WARMUP, connections: CONNECTIONS, next });
      await drain(db);
      assertAlive('after the warm-up of part (a)');
      results.spread = await window(db, processes, { base: api.base, path: '/', headers, seconds: DURATION, connections: CONNECTIONS, next });
      checks.spread = await checkData(db, api, headers, spread.id, spreadReward);
    }
    if (PARTS.has('hot')) {
      // No warm-up on the hot card: it would spend the stock the window is to exhaust.
      const next = redemptions(hot.id, [hotCode], hotReward);
      results.hot = await window(db, processes, { base: api.base, path: '/', headers, seconds: DURATION, connections: HOT_CONNECTIONS, next });
      checks.hot = await checkData(db, api, headers, hot.id, hotReward);
      // What a refused redemption answers once the stock is gone (the window's 400s are counted, not read).
      const { path, body } = next();
      const refused = await fetch(api.base + path, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
      checks.hot.after_the_window = { status: refused.status, key: (await refused.json()).key };
    }
    if (PARTS.has('raw')) results.raw = await rawBaseline({ assertAlive, startRaw, statementSample, stopChild, warmup: WARMUP, duration: DURATION, connections: CONNECTIONS }, db, api, worker, headers, { spread, rawCodes, rawSampleCode, spreadReward, sample });
    assertAlive('at the end');
  } finally {
    await db.end();
  }

  console.log(`\nredemptions (POST /v1/loyalties/{campaignId}/members/{memberId}/redemption, a MATERIAL reward), ${DURATION} s windows after a ${WARMUP} s warm-up; commit ${commit()}`);
  console.log(`${info.cpu}, ${info.cores} cores, PostgreSQL ${info.postgres}, Node ${info.node}, load average ${info.load_average.join(' ')} at the start`);
  console.log(`statements per redemption sent by the API (log sample of ${SAMPLE_REDEMPTIONS}): ${sample.statements_per_order ?? sample.note}\n`);
  const verdicts = [];
  const verdict = (label, met) => {
    verdicts.push({ label, met });
    console.log(`    ${met ? 'MET' : 'MISSED'}: ${label}`);
  };
  if (results.spread) {
    const r = results.spread;
    printPart(`(a) spread: ${SPREAD_CARDS} cards × ${BUCKETS} dated buckets, price ${SPREAD_PRICE} points, ${CONNECTIONS} connections`, r);
    console.log(`    data: ${JSON.stringify(checks.spread)}`);
    verdict(`(a) every answer 200 (${r.non2xx + r.errors + r.timeouts} of ${r.requests} not)`, r.non2xx + r.errors + r.timeouts === 0 && r.ok > 0);
    verdict(`(a) p99 <= ${TARGETS.spread.p99_ms_at_most} ms (${r.p99_ms})`, r.p99_ms <= TARGETS.spread.p99_ms_at_most);
    verdict(`(a) every card's balance = its ledger = its ACTIVE buckets (${checks.spread.cards_off_their_ledger_or_buckets} off)`, checks.spread.cards_off_their_ledger_or_buckets === 0 && checks.spread.redeemed_matches_redemptions);
  }
  if (results.raw) {
    printRaw(results.raw, SAMPLE_REDEMPTIONS);
    verdict(`(a) >= ${TARGETS.spread.ratio_to_baseline_at_least} of the plain baseline's redemptions/s, part (c) (${results.raw.throughput_ratio})`, results.raw.throughput_ratio >= TARGETS.spread.ratio_to_baseline_at_least);
    verdict(`(c) both sides send the same statements (${results.raw.same_statements.differences.length} differences) and leave the data whole (${results.raw.data.cards_off_their_ledger_or_buckets} cards off, redeemed ${results.raw.data.redeemed} = ${results.raw.data.succeeded_redemptions} SUCCEEDED)`, results.raw.same_statements.differences.length === 0 && results.raw.data.cards_off_their_ledger_or_buckets === 0 && results.raw.data.redeemed_matches_redemptions);
  } else if (PARTS.has('spread')) console.log('    NOT MEASURED: (a) >= 0.8 of a plain node:http + pg baseline (run with --parts spread,raw)');
  if (results.hot) {
    const r = results.hot;
    printPart(`(b) hot card: 1 card, 1 reward of stock ${HOT_STOCK} at 1 point, ${HOT_CONNECTIONS} connections`, r);
    console.log(`    data: ${JSON.stringify(checks.hot)}`);
    verdict(`(b) no 5xx answers or socket errors (${fivexx(r) + r.errors} of ${r.requests})`, fivexx(r) + r.errors === 0);
    verdict(`(b) no oversell: redeemed ${checks.hot.redeemed} and ${checks.hot.succeeded_redemptions} SUCCEEDED redemptions for a stock of ${checks.hot.stock}`, checks.hot.oversold === 0 && checks.hot.redeemed_matches_redemptions);
    verdict(
      `(b) every answer is 200 or 400, the stock was exhausted, and then a redemption is 400 quantity_exceeded (${JSON.stringify(r.status_codes)}; then ${JSON.stringify(checks.hot.after_the_window)})`,
      Object.keys(r.status_codes).every((code) => code === '200' || code === '400') && checks.hot.redeemed === HOT_STOCK && checks.hot.after_the_window.key === 'quantity_exceeded',
    );
    verdict(`(b) p99 <= ${TARGETS.hot.p99_ms_at_most} ms over every answer (${r.all.p99_ms}; 2xx ${r.p99_ms})`, r.all.p99_ms <= TARGETS.hot.p99_ms_at_most);
    verdict(`(b) the card's balance = its ledger = its ACTIVE buckets (${checks.hot.cards_off_their_ledger_or_buckets} off)`, checks.hot.cards_off_their_ledger_or_buckets === 0);
  }

  const out = join(root, 'bench/results/redemptions.json');
  await mkdir(dirname(out), { recursive: true });
  const pass = verdicts.every((v) => v.met);
  await writeFile(
    out,
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        commit: commit(),
        machine: info,
        load: { duration_s: DURATION, warmup_s: WARMUP, connections: { spread: CONNECTIONS, hot: HOT_CONNECTIONS }, tool: 'autocannon 9.0.0 (in process), a path per request' },
        setup: {
          spread: { cards: SPREAD_CARDS, buckets: BUCKETS, bucket_points: BUCKET_POINTS, dates: spreadDates, price: SPREAD_PRICE, campaign: spread, reward: spreadReward },
          hot: { card: hotCode, points: HOT_POINTS, stock: HOT_STOCK, campaign: hot, reward: hotReward },
          raw: { cards: rawCodes.length, buckets: BUCKETS, bucket_points: RAW_BUCKET_POINTS },
        },
        targets: TARGETS,
        spread: results.spread && { ...results.spread, data: checks.spread },
        hot: results.hot && { ...results.hot, data: checks.hot },
        raw: results.raw,
        statement_sample: sample,
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

/** The plain node:http + pg baseline (bench/redemptions-raw-server.mjs) on a free port. */
async function startRaw() {
  const port = await freePort();
  const child = await startProcess(['bench/redemptions-raw-server.mjs'], 'listening', { ...childEnv, PORT: String(port) });
  children.push(watch(child, 'the baseline'));
  return { child, base: `http://127.0.0.1:${port}` };
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
  if (process.env.BENCH_KEEP_LOG) console.error(`API log: ${apiLog}`);
  else await rm(apiLog, { force: true });
}
