// Redemptions benchmark: POST /v1/loyalties/{campaignId}/members/{memberId}/redemption of a MATERIAL reward, on the
// compiled API (`node dist/main.js`) with the worker (`node dist/worker.js`) running, in a database and queue
// prefix of its own that are removed afterwards (the method of bench/orders.mjs, whose load and accounting it
// uses: bench/lib/orders-load.mjs):
//
//   (a) spread: 300 cards of one campaign, each with 4 point buckets (3 dated, 30, 60 and 90 days out, and one
//       that never expires, 500 points each), --connections clients (32), each redemption on the next card
//       round-robin; the reward (10 points, unlimited stock) offered in the campaign. --rewards N (1) spreads
//       the redemptions over N such rewards, round-robin: every redemption takes a unit on its reward's row
//       (`redeemed + 1`, even with an unlimited stock), so with one reward that row is a hot spot of its own.
//   (b) hot card: 20 clients (fixed) on one card (1,000,000 points in 4 buckets) and one reward with a limited
//       stock (--hot-stock, 200): when the stock runs out the rest are 400 quantity_exceeded. Warmed up on an
//       unlimited reward of the same card first.
//
// Per part: redemptions/s (2xx), p50/p99 latency, the status histogram, CPU ms per redemption of the API, the
// worker and PostgreSQL (this database's backends; and every postgres process of the machine, other work
// included), transactions and rows per redemption (pg_stat_database), and the statements the API sends per
// redemption (a short sample with log_statement = all, when PostgreSQL's log is readable: BENCH_PG_LOG). After
// each part the data is checked: redemptions stored = 2xx answers = the rewards' `redeemed`, never above the
// stock (oversell), and every card's balance = Σ ledger = Σ remaining points of its ACTIVE buckets.
//
// Not done yet: the plain node:http + pg baseline server sending the same statements (bench/orders.mjs, part c);
// no ratio to a baseline is reported (bench/README.md, "Redemptions").
//
// Options: --duration S (10), --warmup S (2), --connections C (32; part b uses 20), --parts spread,hot,
// --rewards N (1), --hot-stock K (200). A crash exits 1; so does a missed target (issue 38: (a) p99 <= 200 ms;
// (b) no 5xx, no oversell, p99 <= 500 ms). Results: bench/results/redemptions.json.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { freePort, run, startProcess, stopProcess } from './lib/processes.mjs';
import { positive } from './lib/args.mjs';
import { sampleStatements } from './lib/statement-log.mjs';
import { apiWarnings, drain, measureOrders, postLoad } from './lib/orders-load.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '32' },
    parts: { type: 'string', default: 'spread,hot' },
    rewards: { type: 'string', default: '1' },
    'hot-stock': { type: 'string', default: '200' },
  },
});
const DURATION = positive(args.duration, '--duration');
const WARMUP = args.warmup === '0' ? 0 : positive(args.warmup, '--warmup');
const CONNECTIONS = positive(args.connections, '--connections');
const REWARDS = positive(args.rewards, '--rewards');
const HOT_STOCK = positive(args['hot-stock'], '--hot-stock');
const PARTS = new Set(args.parts.split(',').filter(Boolean));
for (const part of PARTS) if (!['spread', 'hot'].includes(part)) throw new Error(`--parts takes spread and hot; got '${part}'`);
const SPREAD_CARDS = 300;
const HOT_CONNECTIONS = 20;
const PRICE = 10;
const SAMPLE = 20;
const TARGETS = { spread: { p99_ms_at_most: 200, baseline_ratio_at_least: 0.8 }, hot: { non5xx: 0, oversold: 0, p99_ms_at_most: 500 } };

// dist/ must match the sources (a no-op when it does); `npm run bench` has built already.
execFileSync(process.execPath, [join(root, 'scripts/build-if-needed.mjs')], { cwd: root, stdio: 'inherit' });
const { loadConfig } = await import('../dist/config/app-config.js');
const { dropDatabase } = await import('../dist/database/ensure-database.js');
const { migrateDatabase } = await import('../dist/app/database/migrate.js');
const { deleteKeysWithPrefix } = await import('../dist/queue/redis-keys.js');

const runId = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
const url = new URL(loadConfig({ DATABASE_POOLER: 'none' }).databaseUrl);
const dbName = `loyalty_bench_${runId}`;
url.pathname = `/${dbName}`;
const config = loadConfig({ DATABASE_URL: url.toString(), DATABASE_SESSION_URL: url.toString(), QUEUE_PREFIX: `loyalty_bench_${runId}`, LOG_LEVEL: 'warn' });
// The limiter stays on at a rate the load never reaches (the default 300 a second would answer with 429).
const childEnv = { ...process.env, DATABASE_URL: config.databaseUrl, DATABASE_SESSION_URL: config.databaseUrl, REDIS_URL: config.redisUrl, QUEUE_PREFIX: config.queuePrefix, RATE_LIMIT_PER_SECOND: '1000000' };
delete childEnv.BOOTSTRAP_APP_ID;
delete childEnv.BOOTSTRAP_APP_TOKEN;
const apiLog = join(os.tmpdir(), `loyalty-bench-${runId}-api.log`);

const children = [];
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

async function adminQuery(sql) {
  const admin = new URL(config.databaseUrl);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

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
  await adminQuery(`ALTER DATABASE ${dbName} RESET log_statement`).catch(() => undefined);
  await dropDatabase(config.databaseUrl);
  await deleteKeysWithPrefix(config.redisUrl, config.queuePrefix);
}

process.once('SIGINT', () => {
  console.error('\ninterrupted: stopping the API and the worker, dropping the database');
  cleanup().catch((error) => console.error(error)).finally(() => process.exit(130));
});

/** The API as production runs it (default LOG_LEVEL, its log to a file), on a free port. */
async function startApi() {
  const port = await freePort();
  const log = createWriteStream(apiLog, { flags: 'a' });
  const child = spawn(process.execPath, [...(process.env.BENCH_API_NODE_ARGS?.split(' ').filter(Boolean) ?? []), 'dist/main.js'], { cwd: root, env: { ...childEnv, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(watch(child, 'the API'));
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i += 1) {
    if (child.exitCode !== null) break;
    try {
      if ((await fetch(`${base}/health/ready`)).status === 200) return { child, base };
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`the API did not become ready; its log:\n${(await readFile(apiLog, 'utf8').catch(() => '')).slice(-4000)}`);
}

async function stopChild(child) {
  stopping.add(child);
  await stopProcess(child);
  children.splice(children.indexOf(child), 1);
}

/** A request to the API that must answer 200. */
async function call(base, headers, method, path, body) {
  const response = await fetch(base + path, { method, headers: { ...headers, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const answer = await response.json().catch(() => null);
  if (response.status !== 200) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}

/** An AUTO_UPDATE loyalty campaign without rules, once its (empty) card generation is DONE. */
async function campaign(api, headers, name) {
  const created = await call(api.base, headers, 'POST', '/v1/loyalties', { name, type: 'AUTO_UPDATE', vouchers_count: 0 });
  let got = created;
  for (let i = 0; got.vouchers_generation_status !== 'DONE'; i += 1) {
    if (i > 300) throw new Error(`campaign ${name}: vouchers_generation_status still ${got.vouchers_generation_status}`);
    await sleep(100);
    got = await call(api.base, headers, 'GET', `/v1/loyalties/${created.id}`);
  }
  return { id: created.id };
}

/** A MATERIAL reward (stock null: unlimited) offered in the campaign at PRICE points. */
async function reward(api, headers, campaignId, name, stock = null) {
  const created = await call(api.base, headers, 'POST', '/v1/rewards', { name, parameters: { product: { id: `prod_${name.replace(/\W+/g, '_')}` } }, ...(stock === null ? {} : { stock }) });
  await call(api.base, headers, 'POST', `/v1/rewards/${created.id}/assignments`, { campaign: campaignId, parameters: { loyalty: { points: PRICE } } });
  return created.id;
}

/** The last day of a bucket `days` from today (UTC; the project's time zone is UTC here). */
const dayFromNow = (days) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/**
 * Enrols each customer in the campaign and gives the card 4 buckets of `each` points: 30, 60 and 90 days out and
 * one that never expires. `parallel` customers at a time. Resolves to the cards' codes.
 */
async function cardsWithBuckets(api, headers, campaignId, customers, each, parallel = 8) {
  const codes = new Array(customers.length);
  let next = 0;
  const additions = [
    { expiration_type: 'CUSTOM_DATE', expiration_date: dayFromNow(30) },
    { expiration_type: 'CUSTOM_DATE', expiration_date: dayFromNow(60) },
    { expiration_type: 'CUSTOM_DATE', expiration_date: dayFromNow(90) },
    { expiration_type: 'NON_EXPIRING' },
  ];
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < customers.length) {
        const i = next++;
        const member = await call(api.base, headers, 'POST', `/v1/loyalties/${campaignId}/members`, { customer: { source_id: customers[i] } });
        for (const expiry of additions) await call(api.base, headers, 'POST', `/v1/loyalties/${campaignId}/members/${member.code}/balance`, { points: each, reason: 'bench', ...expiry });
        codes[i] = member.code;
      }
    }),
  );
  return codes;
}

/** A request maker: each call the next card (round-robin) and the next reward (round-robin). */
function redemptions(campaignId, codes, rewardIds) {
  let n = 0;
  return () => {
    n += 1;
    return { path: `/v1/loyalties/${campaignId}/members/${encodeURIComponent(codes[n % codes.length])}/redemption`, body: JSON.stringify({ reward: { id: rewardIds[n % rewardIds.length] } }) };
  };
}

/** The statements the API sends per redemption: a new API process, 3 to warm it, then SAMPLE one at a time. */
function statementSample(db, headers, make) {
  return sampleStatements({
    db,
    dbName,
    orders: SAMPLE,
    start: startApi,
    stop: (api) => stopChild(api.child),
    send: (api) => {
      const { path, body } = make();
      return call(api.base, headers, 'POST', path, JSON.parse(body));
    },
  });
}

/** A measured window: the load, then the API's warnings during it and the time to drain. */
async function window(db, processes, load) {
  assertAlive('before a measured window');
  const from = (await stat(apiLog).catch(() => ({ size: 0 }))).size;
  const before = await redeemedCount(db, load.rewardIds);
  const waits = await sampleLockWaits();
  const measured = await measureOrders(db, processes, load);
  const lock_waits = await waits.stop();
  assertAlive('during a measured window');
  const drained = await drain(db);
  await sleep(200);
  const stored = (await redeemedCount(db, load.rewardIds)) - before;
  return { ...measured, redemptions_stored: stored, lock_waits, drain_s: drained, api_warnings: await apiWarnings(apiLog, from) };
}

/**
 * Where the sessions of this database wait, sampled every 50 ms on a connection of its own until `stop()`: the
 * mean number of sessions waiting for a lock, by the statement that waits (the card's lock, the reward's stock
 * unit, else the statement's first words), and the mean number running a statement or in a transaction. A redemption waits for its card's row and, at the end, for
 * its reward's row (every redemption of a reward updates it: the hot spot of bench/README.md, "Redemptions").
 */
async function sampleLockWaits() {
  const client = new pg.Client({ connectionString: config.databaseUrl });
  await client.connect();
  const totals = {};
  let samples = 0;
  let busy = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const { rows } = await client.query(
        `SELECT a.state, a.wait_event_type, left(a.query, 120) AS query
         FROM pg_stat_activity a
         WHERE a.datname = current_database() AND a.pid <> pg_backend_pid() AND a.backend_type = 'client backend'`,
      );
      samples += 1;
      for (const row of rows) {
        if (row.state === 'active' || row.state === 'idle in transaction') busy += 1;
        if (row.wait_event_type !== 'Lock') continue;
        const key = /^UPDATE rewards/.test(row.query) ? 'the reward row (its stock unit)' : /FROM vouchers .*FOR NO KEY UPDATE/.test(row.query) ? 'the card row (its lock)' : row.query.split(' ').slice(0, 3).join(' ');
        totals[key] = (totals[key] ?? 0) + 1;
      }
      await sleep(50);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await client.end();
      return { samples, sessions_busy_mean: Number((busy / Math.max(1, samples)).toFixed(2)), waiting_for_a_lock_mean: Object.fromEntries(Object.entries(totals).map(([k, n]) => [k, Number((n / Math.max(1, samples)).toFixed(2))])) };
    },
  };
}

async function redeemedCount(db, rewardIds) {
  return (await db.query(`SELECT count(*)::int AS n FROM redemptions WHERE object = 'redemption' AND reward_id = ANY($1)`, [rewardIds])).rows[0].n;
}

/**
 * The data after a part: per reward, redemptions that stand (SUCCEEDED) against `redeemed` and the stock (an
 * oversell is a `redeemed` or a count above the stock); the cards whose balance is not Σ ledger or Σ ACTIVE
 * buckets' remaining points, or is below zero.
 */
async function checkData(db, rewardIds, cardCodes) {
  const rewards = (
    await db.query(
      `SELECT r.id, r.stock, r.redeemed, coalesce(d.n, 0)::int AS standing
       FROM rewards r LEFT JOIN (SELECT reward_id, count(*) AS n FROM redemptions WHERE object = 'redemption' AND status = 'SUCCEEDED' GROUP BY reward_id) d ON d.reward_id = r.id
       WHERE r.id = ANY($1)`,
      [rewardIds],
    )
  ).rows;
  const [{ n: broken }] = (
    await db.query(
      `SELECT count(*)::int AS n FROM vouchers v
       LEFT JOIN (SELECT voucher_id, sum(points)::bigint AS sum FROM voucher_transactions GROUP BY voucher_id) t ON t.voucher_id = v.id
       LEFT JOIN (SELECT voucher_id, sum(remaining)::bigint AS sum FROM loyalty_points_buckets WHERE status = 'ACTIVE' GROUP BY voucher_id) b ON b.voucher_id = v.id
       WHERE v.code = ANY($1) AND (v.balance < 0 OR v.balance <> coalesce(t.sum, 0) OR v.balance <> coalesce(b.sum, 0))`,
      [cardCodes],
    )
  ).rows;
  const oversold = rewards.reduce((sum, r) => sum + (r.stock === null ? 0 : Math.max(0, r.redeemed - r.stock, r.standing - r.stock)), 0);
  const countersOff = rewards.filter((r) => r.redeemed !== r.standing).length;
  // Buckets drained: how many distinct buckets a redemption drew from (soonest-expiring first).
  return { rewards: rewards.map((r) => ({ id: r.id, stock: r.stock, redeemed: r.redeemed, standing: r.standing })), oversold, rewards_with_redeemed_off: countersOff, cards_off_their_ledger_or_buckets: broken };
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
  console.log(`    ${r.orders_per_s.toFixed(0)} redemptions/s (2xx), p50 ${r.p50_ms} ms, p99 ${r.p99_ms} ms (2xx); all answers p50 ${r.all.p50_ms} p99 ${r.all.p99_ms} ms; ${r.requests} requests, ${r.redemptions_stored} redemptions stored`);
  console.log(`    statuses ${JSON.stringify(r.status_codes)}, socket errors ${r.errors}, timeouts ${r.timeouts}, unanswered at the window's end ${r.unanswered}${r.drain_s >= 30 ? ' (still not drained after 30 s)' : ` (drained in ${r.drain_s} s)`}`);
  if (r.api_warnings && Object.keys(r.api_warnings).length) console.log(`    API log, warn and above: ${Object.entries(r.api_warnings).map(([k, n]) => `${n} × ${k}`).join('; ')}`);
  console.log(`    CPU ms per redemption (2xx): ${cpu}`);
  console.log(`    sessions of the database in a transaction, mean ${r.lock_waits.sessions_busy_mean}; waiting for a lock, mean: ${JSON.stringify(r.lock_waits.waiting_for_a_lock_mean)} (${r.lock_waits.samples} samples)`);
  console.log(`    per redemption (pg_stat_database): ${Object.entries(r.database_per_order).map(([k, v]) => `${k} ${v}`).join(', ')}; deadlocks ${r.database.deadlocks}`);
}

/**
 * Every 2xx is a stored redemption; the requests the load generator cut at the window's end (`unanswered`) may
 * have been redeemed by the API after it (the client went away, the transaction still committed).
 */
const storedAsAnswered = (r) => r.redemptions_stored >= r.ok && r.redemptions_stored <= r.ok + r.unanswered;
const fivexx = (r) => Object.entries(r.status_codes).reduce((sum, [code, n]) => sum + (Number(code) >= 500 ? n : 0), 0);

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
  const spreadRewards = [];
  for (let i = 0; i < REWARDS; i += 1) spreadRewards.push(await reward(api, headers, spread.id, `Spread reward ${i} ${runId}`));
  const sampleReward = await reward(api, headers, spread.id, `Sample reward ${runId}`);
  const hotWarm = await reward(api, headers, hot.id, `Hot warm-up ${runId}`);
  const hotReward = await reward(api, headers, hot.id, `Hot reward ${runId}`, HOT_STOCK);
  const spreadCodes = await cardsWithBuckets(api, headers, spread.id, Array.from({ length: SPREAD_CARDS }, (_, i) => `bench-spread-${i}`), 500);
  const hotCodes = await cardsWithBuckets(api, headers, hot.id, ['bench-hot-0'], 250_000, 1);
  console.log(`set up: ${SPREAD_CARDS} cards with 4 buckets of 500 points, 1 hot card with 4 of 250,000, ${REWARDS + 3} rewards, in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s`);

  const db = new pg.Client({ connectionString: config.databaseUrl });
  await db.connect();
  const results = { spread: null, hot: null };
  const samples = {};
  const checks = {};
  let info;
  try {
    await db.query('VACUUM (ANALYZE)');
    await db.query('CHECKPOINT').catch(() => undefined);
    info = await machine(db);
    const processes = { api: api.child.pid, worker: worker.pid };

    if (PARTS.has('spread')) {
      samples.spread = await statementSample(db, headers, redemptions(spread.id, spreadCodes, [sampleReward]));
      const next = redemptions(spread.id, spreadCodes, spreadRewards);
      if (WARMUP > 0) await postLoad({ base: api.base, path: '/', headers, seconds: WARMUP, connections: CONNECTIONS, next });
      await drain(db);
      assertAlive('after the warm-up of part (a)');
      results.spread = await window(db, processes, { base: api.base, path: '/', headers, seconds: DURATION, connections: CONNECTIONS, next, rewardIds: spreadRewards });
      checks.spread = await checkData(db, [...spreadRewards, sampleReward], spreadCodes);
    }
    if (PARTS.has('hot')) {
      if (WARMUP > 0) await postLoad({ base: api.base, path: '/', headers, seconds: WARMUP, connections: HOT_CONNECTIONS, next: redemptions(hot.id, hotCodes, [hotWarm]) });
      await drain(db);
      assertAlive('after the warm-up of part (b)');
      results.hot = await window(db, processes, { base: api.base, path: '/', headers, seconds: DURATION, connections: HOT_CONNECTIONS, next: redemptions(hot.id, hotCodes, [hotReward]), rewardIds: [hotReward] });
      checks.hot = await checkData(db, [hotWarm, hotReward], hotCodes);
    }
    assertAlive('at the end');
  } finally {
    await db.end();
  }

  console.log(`\nredemptions (POST /v1/loyalties/{campaignId}/members/{memberId}/redemption, a MATERIAL reward of ${PRICE} points), ${DURATION} s windows after a ${WARMUP} s warm-up; commit ${commit()}`);
  console.log(`${info.cpu}, ${info.cores} cores, PostgreSQL ${info.postgres}, Node ${info.node}, load average ${info.load_average.join(' ')} at the start\n`);
  const verdicts = [];
  const verdict = (label, met) => {
    verdicts.push({ label, met });
    console.log(`    ${met ? 'MET' : 'MISSED'}: ${label}`);
  };
  if (results.spread) {
    printPart(`(a) spread: ${SPREAD_CARDS} cards × 4 buckets (3 dated, 1 never), ${REWARDS} reward(s) of unlimited stock, ${CONNECTIONS} connections`, results.spread);
    if (samples.spread) console.log(`    statements per redemption sent by the API (log sample of ${SAMPLE}): ${samples.spread.statements_per_order ?? samples.spread.note}`);
    console.log(`    data: ${JSON.stringify(checks.spread)}`);
    verdict(`(a) p99 <= ${TARGETS.spread.p99_ms_at_most} ms (${results.spread.p99_ms})`, results.spread.p99_ms <= TARGETS.spread.p99_ms_at_most);
    verdict(`(a) no 5xx, every 2xx stored, cards and counters consistent (5xx ${fivexx(results.spread)}, 2xx ${results.spread.ok}, stored ${results.spread.redemptions_stored})`, fivexx(results.spread) === 0 && storedAsAnswered(results.spread) && checks.spread.cards_off_their_ledger_or_buckets === 0 && checks.spread.rewards_with_redeemed_off === 0);
    console.log(`    NOT MEASURED: (a) >= ${TARGETS.spread.baseline_ratio_at_least} of a plain node:http + pg baseline (no baseline server yet)`);
  }
  if (results.hot) {
    printPart(`(b) hot card: 1 card, 1 reward with a stock of ${HOT_STOCK}, ${HOT_CONNECTIONS} connections`, results.hot);
    console.log(`    data: ${JSON.stringify(checks.hot)}`);
    const refused = Object.entries(results.hot.status_codes).filter(([code]) => code !== '200');
    verdict(`(b) no 5xx, socket errors or timeouts (${fivexx(results.hot) + results.hot.errors + results.hot.timeouts}; other answers ${JSON.stringify(Object.fromEntries(refused))})`, fivexx(results.hot) + results.hot.errors + results.hot.timeouts === 0 && results.hot.ok > 0);
    verdict(`(b) no oversell (${checks.hot.oversold}; ${results.hot.ok} redeemed of ${HOT_STOCK}) and the card consistent (${checks.hot.cards_off_their_ledger_or_buckets} off)`, checks.hot.oversold === 0 && results.hot.ok <= HOT_STOCK && storedAsAnswered(results.hot) && checks.hot.cards_off_their_ledger_or_buckets === 0 && checks.hot.rewards_with_redeemed_off === 0);
    verdict(`(b) p99 <= ${TARGETS.hot.p99_ms_at_most} ms (${results.hot.p99_ms}; every answer ${results.hot.all.p99_ms})`, results.hot.p99_ms <= TARGETS.hot.p99_ms_at_most && results.hot.all.p99_ms <= TARGETS.hot.p99_ms_at_most);
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
        load: { duration_s: DURATION, warmup_s: WARMUP, connections: { spread: CONNECTIONS, hot: HOT_CONNECTIONS }, tool: 'autocannon 9.0.0 (in process), the next card and reward per request' },
        setup: { spread: { cards: SPREAD_CARDS, buckets_per_card: 4, rewards: spreadRewards, price: PRICE }, hot: { card: hotCodes[0], reward: hotReward, stock: HOT_STOCK } },
        targets: TARGETS,
        spread: results.spread && { ...results.spread, data: checks.spread },
        hot: results.hot && { ...results.hot, data: checks.hot },
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
