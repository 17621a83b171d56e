import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { dataSourceOptions } from '../../src/app/database/database.options.js';
import { dropDatabase } from '../../src/database/ensure-database.js';
import { prepared, runPrepared } from '../../src/database/prepared.js';
import { Child } from '../support/child.js';
import { BINARIES, keyedCalls, startPgBouncer } from '../support/fleet.js';
import { freePort, testConfig, waitFor } from '../support/harness.js';
import { PointsDb, unique } from '../support/points.js';
import { Receiver } from '../support/receiver.js';

const PGBOUNCER = BINARIES.pgbouncer;
const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const ACTIVATED = 'customer.voucher.loyalty_card.pending_points.activated';
const POINTS_ADDED = 'customer.voucher.loyalty_card.points_added';
/** Each process's pool (DATABASE_POOL_SIZE): 2 APIs and 1 worker may hold 3 × 4 client connections of PgBouncer. */
const POOL_SIZE = 4;
/** PgBouncer's server connections for the database, at most (default_pool_size): fewer than the clients' 12. */
const SERVER_POOL = 6;

const available = existsSync(PGBOUNCER);
if (!available) process.stderr.write(`test/e2e/pgbouncer.e2e-spec.ts skipped: ${PGBOUNCER} is missing (apt-get install pgbouncer; .ci/run installs it)\n`);

/**
 * PostgreSQL through a real PgBouncer in transaction mode (Debian's, without ignore_startup_parameters and
 * without prepared statement support), as docs/scaling.md configures it: DATABASE_URL through the pooler with
 * DATABASE_POOLER=transaction, DATABASE_SESSION_URL directly to PostgreSQL. Two API processes start at once on
 * a database that does not exist yet (both create and migrate it under the advisory lock, on the session URL)
 * and one worker; enrolments, paid orders with pending points, their activation, balance changes and webhook
 * deliveries all work, the deliveries of events the API commits come through the relay's LISTEN (well before
 * the 30 s sweep), parallel orders on one card answer no 5xx, every card's invariants hold, and PgBouncer
 * opened no more server connections than its pool.
 */
(available ? describe : describe.skip)(`PgBouncer in transaction mode (${available ? PGBOUNCER : `skipped: ${PGBOUNCER} is missing`})`, () => {
  const config = testConfig();
  const direct = new URL(config.databaseUrl);
  direct.pathname = `${direct.pathname}_pgb`;
  const database = decodeURIComponent(direct.pathname.slice(1));
  const dir = mkdtempSync(join(tmpdir(), 'loyalty-pgbouncer-'));
  const receiver = new Receiver();
  const children: Child[] = [];
  let pooled = '';
  let db: PointsDb;
  let apis: string[] = [];
  const appId = 'pgb-app';
  const appToken = 'pgb-token-0123456789abcdef';

  const env = (extra: Record<string, string>): NodeJS.ProcessEnv => ({
    ...process.env,
    DATABASE_URL: pooled,
    DATABASE_SESSION_URL: direct.toString(),
    DATABASE_POOLER: 'transaction',
    DATABASE_POOL_SIZE: String(POOL_SIZE),
    QUEUE_PREFIX: `${config.queuePrefix}_pgb`,
    LOG_LEVEL: 'info',
    BOOTSTRAP_APP_ID: appId,
    BOOTSTRAP_APP_TOKEN: appToken,
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
    // A pending day of 2 s; the webhook sweep stays at its 30 s, so a delivery within seconds came through LISTEN.
    PENDING_POINTS_DAY_MS: '2000',
    ...extra,
  });
  const start = (entry: string, extra: Record<string, string> = {}) => {
    const child = new Child(process.execPath, [entry], env(extra));
    children.push(child);
    return child;
  };

  const call = (base: string, method: string, path: string, body?: unknown) => keyedCalls(appId, appToken, () => base).call(method, path, body);
  const ok = (base: string, method: string, path: string, body?: unknown) => keyedCalls(appId, appToken, () => base).ok(method, path, body);

  let serverConnections: () => Promise<number>;

  beforeAll(async () => {
    await dropDatabase(direct.toString());
    await receiver.start();
    const bouncer = await startPgBouncer(dir, direct, SERVER_POOL, children);
    serverConnections = bouncer.serverConnections;
    pooled = bouncer.url;
    db = new PointsDb(direct.toString());
  }, 30_000);

  afterAll(async () => {
    if (process.env.PGB_DEBUG) process.stderr.write(`--- pgbouncer ---\n${children[0]?.output}\n`);
    await db?.end().catch(() => undefined);
    for (const child of children.slice(1).reverse()) await child.stop();
    await children[0]?.stop();
    await receiver.stop();
    await dropDatabase(direct.toString());
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('through the pooler a transaction gets its settings with SET LOCAL, and named statements only where they survive', async () => {
    // The database does not exist yet: the pooler answers for `postgres`, which every server has.
    const options = (preparedStatements: boolean, poolSize = 3) =>
      dataSourceOptions({ databaseUrl: pooled.replace(`/${database}`, '/postgres'), databaseQueryTimeoutMs: 7_000, databaseLockTimeoutMs: 1_500, pendingPointsDayMs: 1_234, pooling: { sessionUrl: direct.toString(), mode: 'transaction', preparedStatements, migrateOnStart: true } }, 'loyalty-pgb-test', poolSize) as DataSourceOptions & { url: string };
    const viaPooler = (preparedStatements: boolean) => new DataSource(options(preparedStatements));
    const safe = viaPooler(false);
    await safe.initialize();
    try {
      const [settings] = await safe.transaction((tx) => tx.query("SELECT current_setting('statement_timeout') AS statement, current_setting('lock_timeout') AS lock, current_setting('loyalty.day_ms') AS day"));
      expect(settings).toEqual({ statement: '7s', lock: '1500ms', day: '1234' });
      // Outside a transaction nothing of it stays on the server connection the next client gets.
      const [after] = await safe.query("SELECT current_setting('loyalty.day_ms', true) AS day");
      expect([null, '']).toContain(after.day);
      const statement = prepared('pgb_probe', 'SELECT $1::int + 1 AS n');
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => runPrepared<{ n: number }[]>(safe, statement, [i])));
      expect(answers.map(([row]) => row.n)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    } finally {
      await safe.destroy();
    }
    // Named statements through PgBouncer 1.18 (what DATABASE_PREPARED_STATEMENTS=true would do): prepared on
    // one server connection, which another client then holds in its transaction, and bound on another.
    const unsafe = new DataSource(options(true, 1));
    const other = new pg.Client({ connectionString: options(true, 1).url });
    await unsafe.initialize();
    await other.connect();
    try {
      const statement = prepared('pgb_named', 'SELECT $1::int + 1 AS n');
      expect(await runPrepared(unsafe, statement, [1])).toEqual([{ n: 2 }]);
      await other.query('BEGIN');
      await other.query('SELECT 1');
      await expect(runPrepared(unsafe, statement, [2])).rejects.toThrow(/prepared statement "pgb_named_[0-9a-f]+" does not exist/);
      await other.query('COMMIT');
    } finally {
      await other.end();
      await unsafe.destroy();
    }
  }, 30_000);

  it('two APIs start at once on a missing database and a worker: both ready, schema migrated once, the migration lock released', async () => {
    const ports = [await freePort(), await freePort()];
    const started = ports.map((port) => start('dist/main.js', { PORT: String(port) }));
    await Promise.all(started.map((api) => api.waitFor('API ready')));
    // The worker after the migration, as a deployment starts it: one that reached PgBouncer before the
    // database existed would make PgBouncer wait server_login_retry (15 s) before its next server login.
    const worker = start('dist/worker.js');
    await worker.waitFor('Worker ready');
    apis = ports.map((port) => `http://127.0.0.1:${port}`);
    await db.connect();
    for (const base of apis) expect((await fetch(`${base}/health/ready`)).status).toBe(200);
    for (const child of [...started, worker]) expect(child.output).not.toMatch(/unsupported startup parameter|prepared statement .* (already exists|does not exist)/);
    const [migrations] = await db.query<{ all: number; distinct: number }>('SELECT count(*)::int AS all, count(DISTINCT name)::int AS distinct FROM migrations');
    expect(migrations.all).toBe(migrations.distinct);
    // The advisory lock is not stranded: a migration run now returns at once.
    const { stdout } = await run(process.execPath, ['dist/cli.js', 'migrate'], { cwd: root, env: env({ LOG_LEVEL: 'warn' }), timeout: 30_000 });
    expect(stdout).toContain('Nothing to migrate');
    // The relay's LISTEN is a session of its own on the session URL, straight to PostgreSQL.
    const listeners = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'loyalty-webhook-relay'", [database]);
    expect(listeners[0].n).toBe(1);
  }, 120_000);

  it('enrolments, parallel paid orders on one card, pending activation and webhook deliveries through the pooler: no 5xx, invariants hold', async () => {
    expect(apis).toHaveLength(2);
    const [one, two] = apis;
    const campaign = await ok(one, 'POST', '/v1/loyalties', { name: unique('Pooler campaign') });
    await waitFor(async () => ((await ok(one, 'GET', `/v1/loyalties/${String(campaign.id)}`)).vouchers_generation_status === 'DONE' ? true : undefined));
    await ok(two, 'POST', `/v1/loyalties/${String(campaign.id)}/earning-rules`, [{ loyalty: { type: 'FIXED', points: 10 }, pending_points: { period_type: 'DAY', period_value: 1 } }]);
    await ok(one, 'POST', '/v1/distributions', { name: unique('Activated'), trigger: ACTIVATED, target_url: receiver.url('/activated') });
    await ok(two, 'POST', '/v1/distributions', { name: unique('Added'), trigger: POINTS_ADDED, target_url: receiver.url('/added') });

    // Enrolments on both APIs (the customers' named statement of the pool, unnamed through the pooler).
    const customers = Array.from({ length: 6 }, (_, i) => unique(`pgb-customer-${i}`));
    const enrolments = await Promise.all(customers.map((customer, i) => call(apis[i % 2], 'POST', `/v2/loyalties/programs/${String(campaign.program_id)}/members`, { customer_identification: { type: 'customer_source_id', customer_source_id: customer } })));
    expect(enrolments.map((res) => res.status)).toEqual(customers.map(() => 200));
    const codes = enrolments.map((res) => (res.body.cards as { card: { code: string } }[])[0].card.code);

    // 40 paid orders on one card at once, half on each API, and 2 on every other card.
    const orders = [
      ...Array.from({ length: 40 }, (_, i) => ({ base: apis[i % 2], customer: customers[0] })),
      ...customers.slice(1).flatMap((customer, i) => [{ base: apis[i % 2], customer }, { base: apis[(i + 1) % 2], customer }]),
    ];
    const answers = await Promise.all(orders.map(({ base, customer }) => call(base, 'POST', '/v1/orders', { status: 'PAID', amount: 1000, customer: { source_id: customer } })));
    expect(answers.filter((res) => res.status >= 500)).toEqual([]);
    expect(answers.filter((res) => res.status !== 200)).toEqual([]);
    // Balance changes by hand, on both APIs: their events commit in the API process, so only the relay's LISTEN wakes the worker.
    const added = await Promise.all(codes.map((code, i) => call(apis[i % 2], 'POST', `/v1/loyalties/members/${code}/balance`, { points: 5 })));
    expect(added.map((res) => res.status)).toEqual(codes.map(() => 200));

    // Every pending entry activates once (the worker's delayed jobs, after the 2 s day).
    const entries = orders.length;
    await waitFor(async () => ((await db.count("SELECT 1 FROM loyalty_pending_points WHERE status = 'ACTIVATED'")) === entries ? true : undefined), { timeoutMs: 60_000, intervalMs: 200 });
    expect(await db.count("SELECT 1 FROM loyalty_pending_points WHERE status <> 'ACTIVATED'")).toBe(0);
    expect((await db.card(codes[0])).balance).toBe(40 * 10 + 5);

    // Every event delivered, within seconds of its commit (the sweep would take up to 30 s).
    const events = await db.query<{ id: string; type: string; created_at: Date }>('SELECT id, type, created_at FROM events WHERE type = ANY($1)', [[ACTIVATED, POINTS_ADDED]]);
    expect(events.filter((event) => event.type === POINTS_ADDED)).toHaveLength(codes.length);
    const received = () => new Map([...receiver.on('/activated'), ...receiver.on('/added')].map((request) => [JSON.parse(request.body).event.id as string, request.at]));
    await waitFor(async () => (received().size >= events.length ? true : undefined), { timeoutMs: 20_000, intervalMs: 100 });
    const lags = events.map((event) => (received().get(event.id) ?? Infinity) - event.created_at.getTime()).sort((x, y) => x - y);
    expect(lags[lags.length - 1]).toBeLessThan(5_000);
    process.stderr.write(`pgbouncer e2e: ${events.length} events, event → delivery p50 ${lags[Math.floor(lags.length / 2)]} ms, max ${lags[lags.length - 1]} ms\n`);

    expect(await db.brokenCards()).toEqual([]);
    // PgBouncer never opened more server connections than its pool, for 3 processes × 4 client connections.
    const held = await serverConnections();
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThanOrEqual(SERVER_POOL);
    // PostgreSQL's side of the budget (docs/scaling.md): PgBouncer's pool, the worker's 5 session connections, this test's own.
    const [backends] = await db.query<{ n: number; session: number }>(
      "SELECT count(*)::int AS n, (count(*) FILTER (WHERE application_name IN ('loyalty-webhook-relay', 'loyalty-webhook-dispatcher', 'loyalty-webhook-payloads')))::int AS session FROM pg_stat_activity WHERE datname = $1",
      [database],
    );
    expect(backends.session).toBeLessThanOrEqual(5);
    expect(backends.n).toBeLessThanOrEqual(SERVER_POOL + 5 + 1);
    process.stderr.write(`pgbouncer e2e: PgBouncer server connections ${held} (pool ${SERVER_POOL}), PostgreSQL backends of the database ${backends.n} (of which worker sessions ${backends.session})\n`);
    for (const child of children.slice(1)) expect(child.output).not.toMatch(/unsupported startup parameter|prepared statement/);
  }, 120_000);
});
