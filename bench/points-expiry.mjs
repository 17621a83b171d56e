// Point expiry benchmark. 100,000 credits on 20,000 cards (members with customers, as the seed makes them)
// come due at the same moment T with a real worker process running, its `points-expiry` sweep every 50 ms;
// a card has one bucket per last day (issue 36), so the credits are made as the buckets they merge into:
// BENCH_DAYS last days per card (5 by default: 100,000 buckets, 5 a card, as if the sweep had been away for
// five days; 1: every credit of a card on one day, 20,000 buckets of 5 credits each). We report expired
// buckets (and credits) per second end to end (T → the last expiry commit). In the same run,
// interleaved (A B B A), the limit the queue itself sets for the same count, as bench/pending-points.mjs
// measures it: that many delayed jobs due at once, taken by a worker process whose processor does nothing.
// The expiry uses no queue; the ratio says how its sweep compares with what the queue would allow a job per
// bucket. Checks, after the rounds: every bucket EXPIRED, one POINTS_EXPIRATION row per card naming its
// buckets, one points_expired event per card with a holder; at the end, one query for every card's
// balance = Σ ledger = Σ remaining of ACTIVE buckets = points − expired − subtracted.
// Runs against the compiled service, in a database and queue prefix of its own, removed afterwards.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { Queue } from 'bullmq';
import pg from 'pg';
import { cpuMs } from './lib/http-load.mjs';
import { startProcess, stopProcess } from './lib/processes.mjs';
import { loadConfig } from '../dist/config/app-config.js';
import { dropDatabase } from '../dist/database/ensure-database.js';
import { migrateDatabase } from '../dist/app/database/migrate.js';
import { POINTS_EXPIRY_BATCH } from '../dist/points/buckets/points-expiry.sweep.js';
import { deleteKeysWithPrefix } from '../dist/queue/redis-keys.js';
import { redisOptions } from '../dist/queue/redis-options.js';

/** Credits (BENCH_BUCKETS, its name from before buckets merged), on CARDS cards over DAYS last days each. */
const CREDITS = Number(process.env.BENCH_BUCKETS ?? 100_000);
const CARDS = Number(process.env.BENCH_CARDS ?? 20_000);
const DAYS = Number(process.env.BENCH_DAYS ?? 5);
/** The buckets the credits make: one per card and day. */
const BUCKETS = Math.min(CARDS, CREDITS) * Math.min(DAYS, Math.ceil(CREDITS / CARDS));
const SWEEP_MS = Number(process.env.BENCH_SWEEP_MS ?? 50);
// Buckets (A) and jobs (B) are made this long before they come due; a setup that overruns it fails the run.
const LEAD_MS = Number(process.env.BENCH_LEAD_MS ?? Math.max(4_000, CREDITS * 0.1));
const JOBS_LEAD_MS = Number(process.env.BENCH_JOBS_LEAD_MS ?? Math.max(4_000, BUCKETS * 0.15));
const TARGET_RATE = 5_000;
const EXPIRED_EVENT = 'customer.voucher.loyalty_card.points_expired';

const root = new URL('../', import.meta.url).pathname;
const run = promisify(execFile);
const runId = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
const url = new URL(loadConfig().databaseUrl);
url.pathname = `/loyalty_bench_${runId}`;
const env = {
  ...process.env,
  DATABASE_URL: url.toString(),
  QUEUE_PREFIX: `loyalty_bench_${runId}`,
  // The worker logs each committed expiry batch at debug level: the end is the last commit, not a poll.
  LOG_LEVEL: 'debug',
  POINTS_EXPIRY_SWEEP_MS: String(SWEEP_MS),
};
const config = loadConfig(env);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/** Each committed expiry batch the worker logged: [commit time (epoch ms), buckets, cards]. */
function committedBatches(output) {
  const batches = [];
  for (const line of output.split('\n')) {
    if (!line.includes('"points expired"')) continue;
    const entry = JSON.parse(line);
    batches.push([entry.time, entry.buckets, entry.cards]);
  }
  return batches;
}

/**
 * CREDITS credits due at `due`, credit g on card g % CARDS and last day (g / CARDS) % DAYS days before T's, made
 * as the ACTIVE buckets they merge into (one per card and day, as every credit path adds to its day's bucket):
 * a card's buckets lie far apart in the table, as buckets made on different days of a year do. The cards'
 * points and balance rise by their buckets' sum, with one POINTS_ADDITION ledger row each, so the invariant
 * holds before the expiry as it does after an addition by hand. Returns the buckets made.
 */
async function makeBuckets(db, seed, due, round) {
  const tag = `${runId}${round}`;
  await db.query('BEGIN');
  const made = await db.query(
    `WITH cards AS (SELECT id, project_id, campaign_id, row_number() OVER (ORDER BY id) - 1 AS n FROM vouchers WHERE campaign_id = $1),
     credits AS (SELECT g, (g / (SELECT count(*) FROM cards)) % $5 AS day, c.* FROM generate_series(0, $2 - 1) g JOIN cards c ON c.n = g % (SELECT count(*) FROM cards))
     INSERT INTO loyalty_points_buckets (id, project_id, voucher_id, campaign_id, total_points, remaining, expires_at, expire_after, created_at)
     SELECT 'lopb_' || left(md5($3 || min(g)), 18), project_id, id, campaign_id, sum(1 + g % 50), sum(1 + g % 50),
            ($4::timestamptz AT TIME ZONE 'UTC')::date - 1 - day::int, $4::timestamptz, $4::timestamptz - make_interval(days => 1 + (min(g) * 364 / $2)::int)
     FROM credits GROUP BY project_id, id, campaign_id, day ORDER BY min(g)`,
    [seed.campaign_id, CREDITS, tag, due.toISOString(), DAYS],
  );
  await db.query(
    `WITH added AS (SELECT voucher_id, sum(remaining)::bigint AS points FROM loyalty_points_buckets WHERE campaign_id = $1 AND expire_after = $2::timestamptz GROUP BY voucher_id),
     cards AS (UPDATE vouchers v SET points = v.points + a.points, balance = v.balance + a.points, updated_at = now() FROM added a WHERE v.id = a.voucher_id
               RETURNING v.id, v.project_id, v.campaign_id, v.points AS total, v.balance, a.points)
     INSERT INTO voucher_transactions (id, project_id, voucher_id, campaign_id, type, points, balance_after, details, source_id, created_at)
     SELECT 'vtx_' || left(md5($3 || id), 18), project_id, id, campaign_id, 'POINTS_ADDITION', points, balance,
            json_build_object('balance', json_build_object('type', 'loyalty_card', 'total', total, 'object', 'balance', 'points', points, 'balance', balance,
                                                           'related_object', json_build_object('id', id, 'type', 'voucher')),
                              'reason', 'bench points-expiry'), NULL, now()
     FROM cards`,
    [seed.campaign_id, due.toISOString(), tag],
  );
  await db.query('COMMIT');
  if (made.rowCount !== BUCKETS) throw new Error(`made ${made.rowCount} buckets, expected ${BUCKETS}`);
  // Steady state: a production table has statistics and a visibility map; these rows were made a moment ago.
  await db.query('VACUUM (ANALYZE) loyalty_points_buckets, vouchers, voucher_transactions');
}

async function backendPids(db) {
  return (await db.query('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()')).rows.map((r) => r.pid);
}

/** A: the service. Buckets due in LEAD_MS, the worker process already running, until none is ACTIVE. */
async function expiryRound(db, seed, round) {
  const worker = await startProcess(['dist/worker.js'], 'Worker ready', env);
  try {
    const due = new Date(Date.now() + LEAD_MS);
    const setupStarted = Date.now();
    await makeBuckets(db, seed, due, round);
    const setupMs = Date.now() - setupStarted;
    if (Date.now() > due.getTime() - 500) throw new Error(`setup took ${setupMs} ms, longer than the lead time; raise BENCH_LEAD_MS`);
    // CPU from T to the end: the worker process and this database's PostgreSQL backends (its pool is open:
    // the sweep has been running every SWEEP_MS), not the benchmark's own.
    await sleep(due.getTime() - Date.now());
    const backends = await backendPids(db);
    const before = [await cpuMs([worker.pid]), await cpuMs(backends)];
    // A bounded poll of the buckets' state; the end time itself comes from the worker's commits.
    const deadline = due.getTime() + Math.max(60_000, BUCKETS * 2);
    for (;;) {
      await sleep(500);
      const { rows } = await db.query(`SELECT count(*)::int AS n FROM loyalty_points_buckets WHERE expire_after = $1 AND status = 'EXPIRED'`, [due.toISOString()]);
      if (rows[0].n === BUCKETS) break;
      if (Date.now() > deadline) throw new Error(`${rows[0].n} of ${BUCKETS} buckets expired after ${Date.now() - due.getTime()} ms`);
    }
    // A backend connected after T counts from 0.
    const after = [await cpuMs([worker.pid]), await cpuMs([...new Set([...backends, ...(await backendPids(db))])])];
    await sleep(200); // the last log lines are written asynchronously
    const batches = committedBatches(worker.output()).filter(([at]) => at >= due.getTime());
    if (process.env.BENCH_TIMELINE) console.error(batches.map(([at, n, cards]) => `${at - due.getTime()}: ${n}/${cards}`).join('  '));
    const logged = batches.reduce((sum, [, n]) => sum + n, 0);
    if (logged !== BUCKETS) throw new Error(`the worker logged ${logged} expired buckets for ${BUCKETS}`);
    const last = Math.max(...batches.map(([at]) => at));
    const sizes = batches.map(([, n]) => n).sort((a, b) => a - b);
    const perBucketUs = (i) => ((after[i] - before[i]) * 1000) / BUCKETS;
    return { rate: BUCKETS / ((last - due.getTime()) / 1000), span: last - due.getTime(), batches: batches.length, batchMedian: quantile(sizes, 0.5), setupMs, workerUs: perBucketUs(0), postgresUs: perBucketUs(1) };
  } finally {
    await stopProcess(worker);
  }
}

async function addDelayedJobs(queue, ids, due) {
  for (let i = 0; i < ids.length; i += 1_000) {
    const chunk = ids.slice(i, i + 1_000);
    await queue.addBulk(chunk.map((id) => ({ name: 'noop', data: {}, opts: { jobId: id, delay: due.getTime() - Date.now(), removeOnComplete: false } })));
  }
}

/** B: the queue alone. As many delayed jobs as buckets, due together, taken by a no-op worker process. */
async function queueLimitRound(queue, round) {
  const worker = await startProcess(['bench/noop-worker.mjs'], 'noop worker ready', env);
  try {
    const due = new Date(Date.now() + JOBS_LEAD_MS);
    const ids = Array.from({ length: BUCKETS }, (_, i) => `noop-${round}-${i}`);
    await addDelayedJobs(queue, ids, due);
    if (Date.now() > due.getTime() - 500) throw new Error('adding the jobs took longer than the lead time; raise BENCH_JOBS_LEAD_MS');
    const deadline = due.getTime() + Math.max(60_000, BUCKETS * 2);
    for (;;) {
      const counts = await queue.getJobCounts('completed');
      if (counts.completed >= BUCKETS) break;
      if (Date.now() > deadline) throw new Error(`${counts.completed} of ${BUCKETS} no-op jobs done after ${Date.now() - due.getTime()} ms`);
      await sleep(250);
    }
    let last = 0;
    for (let i = 0; i < BUCKETS; i += 10_000) {
      const jobs = await queue.getJobs(['completed'], i, i + 9_999);
      for (const job of jobs) last = Math.max(last, job.finishedOn);
    }
    await queue.clean(0, BUCKETS * 2, 'completed');
    return { rate: BUCKETS / ((last - due.getTime()) / 1000), span: last - due.getTime() };
  } finally {
    await stopProcess(worker);
  }
}

/** What every expiry round must have left, summed over `rounds` rounds, and the invariant of every card, in one query. */
async function verify(db, seed, rounds) {
  const { rows } = await db.query(
    `WITH cards AS (
       SELECT v.id, v.holder_id, v.balance::bigint, v.points::bigint, v.expired_points::bigint AS expired, v.subtracted_points::bigint AS subtracted,
              coalesce((SELECT sum(t.points) FROM voucher_transactions t WHERE t.voucher_id = v.id), 0)::bigint AS ledger,
              coalesce((SELECT sum(b.remaining) FROM loyalty_points_buckets b WHERE b.voucher_id = v.id AND b.status = 'ACTIVE'), 0)::bigint AS active
       FROM vouchers v WHERE v.project_id = $1)
     SELECT (SELECT count(*)::int FROM cards WHERE balance <> ledger OR balance <> active OR balance <> points - expired - subtracted) AS broken,
            (SELECT count(*)::int FROM cards WHERE balance <> 0) AS with_balance,
            (SELECT count(*)::int FROM cards WHERE holder_id IS NOT NULL) AS holders,
            (SELECT coalesce(sum(expired), 0)::bigint FROM cards) AS expired_points,
            (SELECT count(*)::int FROM voucher_transactions WHERE project_id = $1 AND type = 'POINTS_EXPIRATION') AS expirations,
            (SELECT coalesce(sum(json_array_length(details->'buckets')), 0)::int FROM voucher_transactions WHERE project_id = $1 AND type = 'POINTS_EXPIRATION') AS named,
            (SELECT coalesce(-sum(points), 0)::bigint FROM voucher_transactions WHERE project_id = $1 AND type = 'POINTS_EXPIRATION') AS ledger_expired,
            (SELECT coalesce(sum(total_points), 0)::bigint FROM loyalty_points_buckets WHERE project_id = $1) AS seeded_points,
            (SELECT count(*)::int FROM loyalty_points_buckets WHERE project_id = $1 AND status = 'EXPIRED') AS expired_buckets,
            (SELECT count(*)::int FROM events WHERE project_id = $1 AND type = $2) AS events,
            (SELECT avg(octet_length(data::text))::int FROM events WHERE project_id = $1 AND type = $2) AS event_bytes`,
    [seed.project_id, EXPIRED_EVENT],
  );
  const r = rows[0];
  const cardsWithBuckets = Math.min(CARDS, BUCKETS);
  return [
    [`every card: balance = Σ ledger = Σ ACTIVE remaining = points − expired − subtracted (${r.broken} broken)`, r.broken === 0],
    [`every balance back to 0 (${r.with_balance} not)`, r.with_balance === 0],
    [`${r.expired_buckets.toLocaleString('en')} buckets EXPIRED = ${rounds} × ${BUCKETS.toLocaleString('en')}`, r.expired_buckets === rounds * BUCKETS],
    [`${r.expirations.toLocaleString('en')} POINTS_EXPIRATION rows = ${rounds} × ${cardsWithBuckets.toLocaleString('en')} cards`, r.expirations === rounds * cardsWithBuckets],
    [`their details name ${r.named.toLocaleString('en')} buckets, ${Number(r.ledger_expired).toLocaleString('en')} points (= expired_points ${Number(r.expired_points).toLocaleString('en')} = the buckets' ${Number(r.seeded_points).toLocaleString('en')})`,
      r.named === rounds * BUCKETS && r.ledger_expired === r.expired_points && r.expired_points === r.seeded_points],
    [`${r.events.toLocaleString('en')} points_expired events (${r.event_bytes} bytes of data on average) = ${rounds} × ${Math.min(r.holders, cardsWithBuckets).toLocaleString('en')} cards with a holder`, r.events === rounds * Math.min(r.holders, cardsWithBuckets)],
  ];
}

async function main() {
  if (CREDITS % (CARDS * DAYS) !== 0 && CREDITS > CARDS) console.warn(`note: ${CREDITS} credits do not divide evenly over ${CARDS} cards and ${DAYS} days`);
  await migrateDatabase(config);
  const { stdout } = await run(process.execPath, ['dist/cli.js', 'seed', '--members', String(CARDS)], { cwd: root, env });
  const seed = JSON.parse(stdout.trim().split('\n').at(-1));
  const db = new pg.Client({ connectionString: config.databaseUrl });
  await db.connect();
  const noop = new Queue('noop-bench', { connection: redisOptions(config.redisUrl, false), prefix: config.queuePrefix });
  try {
    const a = [];
    const b = [];
    for (const [i, kind] of ['A', 'B', 'B', 'A'].entries()) {
      if (kind === 'A') a.push(await expiryRound(db, seed, i));
      else b.push(await queueLimitRound(noop, i));
    }
    const mean = (rounds, key) => (rounds[0][key] + rounds[1][key]) / 2;
    console.log(
      `\npoint expiry: ${CREDITS.toLocaleString('en')} credits on ${CARDS.toLocaleString('en')} cards over ${DAYS} day(s) each = ${BUCKETS.toLocaleString('en')} buckets due at once; sweep every ${SWEEP_MS} ms, batches of ${POINTS_EXPIRY_BATCH} due buckets; rounds A B B A`,
    );
    for (const [i, r] of a.entries()) {
      console.log(
        `  expiry, round ${i + 1}                   ${r.rate.toFixed(0).padStart(7)} buckets/s (${((r.rate * CREDITS) / BUCKETS).toFixed(0)} credits/s)   all expired ${r.span} ms after T   ${r.batches} batches (median ${r.batchMedian} buckets)   CPU µs/bucket: worker ${r.workerUs.toFixed(1)}, PostgreSQL ${r.postgresUs.toFixed(1)}   setup ${r.setupMs} ms`,
      );
    }
    for (const [i, r] of b.entries()) console.log(`  queue limit (no-op jobs), round ${i + 1}  ${r.rate.toFixed(0).padStart(7)} jobs/s      all done ${r.span} ms after T`);
    const rate = mean(a, 'rate');
    const limit = mean(b, 'rate');
    console.log(`  mean of the two rounds: ${rate.toFixed(0)} buckets/s, all expired ${mean(a, 'span').toFixed(0)} ms after T; queue limit ${limit.toFixed(0)} jobs/s; ratio ${(rate / limit).toFixed(2)}`);

    const checks = [[`buckets/s >= ${TARGET_RATE}`, rate >= TARGET_RATE], ...(await verify(db, seed, a.length))];
    for (const [label, ok] of checks) console.log(`  ${ok ? 'PASS' : 'FAIL'}: ${label}`);
    process.exitCode = checks.every(([, ok]) => ok) ? 0 : 1;
  } finally {
    await noop.close();
    await db.end();
    await dropDatabase(config.databaseUrl);
    await deleteKeysWithPrefix(config.redisUrl, config.queuePrefix);
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
