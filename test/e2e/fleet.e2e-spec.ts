/**
 * @heavy real servers and several processes through failovers and restarts: never beside another heavy file (test/setup/file-environment.mjs).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropDatabase } from '../../src/database/ensure-database.js';
import { Child, RequestStream } from '../support/child.js';
import { BINARIES, idleKeepAliveStatuses, keyedCalls, programWithMembers, startHaproxy, startPgBouncer, startSentinelRedis } from '../support/fleet.js';
import { freePort, testConfig, waitFor } from '../support/harness.js';
import { PointsDb, unique } from '../support/points.js';
import { Receiver } from '../support/receiver.js';

const ACTIVATED = 'customer.voucher.loyalty_card.pending_points.activated';
const MASTER = 'loyalty-fleet';
/** PgBouncer's server connections for the database (default_pool_size): the budget docs/scaling.md sizes, for 5 processes × 4 client connections. */
const SERVER_POOL = 8;
const DRAIN_MS = 2_000;

const missing = Object.values(BINARIES).filter((path) => !existsSync(path));
if (missing.length) process.stderr.write(`test/e2e/fleet.e2e-spec.ts skipped: ${missing.join(', ')} missing (.ci/run installs pgbouncer, haproxy, redis-sentinel)\n`);

/**
 * The many-machines proof (issue 39, docs/scaling.md) on the real servers: PgBouncer in transaction mode (no
 * ignore_startup_parameters), a Redis master + two replicas + three sentinels, haproxy over three APIs checking
 * `/health/ready`, two workers; migrated once. Under a steady stream of paid orders with pending points and member
 * reads through the balancer, with a webhook distribution: a worker is SIGKILLed and started again, an API is sent
 * SIGTERM and replaced, Redis is failed over through Sentinel, and idle client connections are kept through the
 * balancer past Node's old 5 s. Then: no answer is a 5xx but the 503 a write gets while Redis has no master, none
 * while the API is replaced, none a 502; every order answered is recorded; every card's balance = ledger =
 * buckets; every pending entry activated once; every event delivered (no webhook-id twice with different
 * bodies) and promptly (LISTEN on the session URL); PgBouncer held no more server connections than its pool.
 */
(missing.length ? describe.skip : describe)(`a fleet: 3 APIs behind haproxy, 2 workers, PgBouncer, Redis Sentinel (${missing.length ? 'skipped' : 'real servers'})`, () => {
  const config = testConfig();
  const direct = new URL(config.databaseUrl);
  direct.pathname = `${direct.pathname}_fleet`;
  const dir = mkdtempSync(join(tmpdir(), 'loyalty-fleet-'));
  const receiver = new Receiver();
  const servers: Child[] = [];
  const processes: Child[] = [];
  const appId = 'fleet-app';
  const appToken = 'fleet-token-0123456789abcdef';
  let env: (extra?: Record<string, string>) => NodeJS.ProcessEnv;
  let db: PointsDb;

  const start = async (entry: 'dist/main.js' | 'dist/worker.js', extra: Record<string, string> = {}) => {
    const child = new Child(process.execPath, [entry], env(extra));
    processes.push(child);
    await child.waitFor(entry === 'dist/main.js' ? 'API ready' : 'Worker ready');
    return child;
  };

  afterAll(async () => {
    await db?.end().catch(() => undefined);
    for (const child of processes.reverse()) await child.stop();
    for (const child of servers.reverse()) await child.stop();
    await receiver.stop();
    await dropDatabase(direct.toString());
    rmSync(dir, { recursive: true, force: true });
  }, 90_000);

  it('goes on through a killed worker, a replaced API, a Redis failover and idle connections; every invariant holds', async () => {
    await dropDatabase(direct.toString());
    await receiver.start();
    const bouncer = await startPgBouncer(dir, direct, SERVER_POOL, servers);
    const redis = await startSentinelRedis(dir, MASTER, servers);
    env = (extra = {}) => ({
      ...process.env,
      DATABASE_URL: bouncer.url,
      DATABASE_SESSION_URL: direct.toString(),
      DATABASE_POOLER: 'transaction',
      DATABASE_POOL_SIZE: '4',
      MIGRATE_ON_START: 'false',
      REDIS_URL: 'redis://127.0.0.1:1',
      REDIS_SENTINELS: redis.sentinels,
      REDIS_SENTINEL_NAME: MASTER,
      QUEUE_PREFIX: `${config.queuePrefix}_fleet`,
      LOG_LEVEL: 'info',
      BOOTSTRAP_APP_ID: appId,
      BOOTSTRAP_APP_TOKEN: appToken,
      RATE_LIMIT_PER_SECOND: '0',
      WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_RETRY_BASE_MS: '500',
      PENDING_POINTS_DAY_MS: '2000',
      // Activation jobs lost with the killed worker or the failover are the sweep's to find: every 3 s here (60 s by
      // default). The webhook sweep keeps its 30 s, so the delivery lag below proves the relay's LISTEN.
      PENDING_POINTS_SWEEP_MS: '3000',
      SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
      SHUTDOWN_TIMEOUT_MS: '15000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '65000',
      ...extra,
    });
    // Migrated once, as the deployment's Job does (MIGRATE_ON_START=false everywhere else).
    const migrate = new Child(process.execPath, ['dist/cli.js', 'migrate'], env());
    expect(await migrate.exited()).toBe(0);
    const ports = [await freePort(), await freePort(), await freePort()];
    const apis = new Map<number, Child>();
    apis.set(ports[0], await start('dist/main.js', { PORT: String(ports[0]) }));
    await Promise.all(ports.slice(1).map(async (port) => apis.set(port, await start('dist/main.js', { PORT: String(port) }))));
    const workers = await Promise.all([start('dist/worker.js'), start('dist/worker.js')]);
    const front = await startHaproxy(dir, ports, servers);
    db = new PointsDb(direct.toString());
    await db.connect();

    const { call, ok } = keyedCalls(appId, appToken, () => front);
    const { customers, codes } = await programWithMembers(ok, 'Fleet', [{ loyalty: { type: 'FIXED', points: 10 }, pending_points: { period_type: 'DAY', period_value: 1 } }], 6);
    await ok('POST', '/v1/distributions', { name: unique('Fleet activated'), trigger: ACTIVATED, target_url: receiver.url('/activated') });

    const ordered: string[] = [];
    const stream = new RequestStream(async (i) => {
      if (i % 3 === 2) {
        const res = await call('GET', `/v1/loyalties/members/${codes[i % codes.length]}`);
        return { status: res.status, what: `read ${JSON.stringify(res.body).slice(0, 200)}` };
      }
      // Half of the orders on one card: the hot card of a sale, across the three APIs.
      const res = await call('POST', '/v1/orders', { status: 'PAID', amount: 1000, customer: { source_id: customers[i % 2 === 0 ? 0 : i % customers.length] } });
      if (res.status === 200) ordered.push(String(res.body.id));
      return { status: res.status, what: `order ${JSON.stringify(res.body).slice(0, 200)}` };
    });
    const windows: Record<string, [number, number]> = {};
    const moreAnswers = async (n: number) => {
      const at = stream.answers.length;
      await waitFor(async () => (stream.answers.slice(at).filter((a) => a.status === 200).length >= n ? true : undefined), { timeoutMs: 30_000, intervalMs: 100 });
    };
    stream.start(3, 25);
    try {
      await moreAnswers(30);
      // 1. A worker dies mid-work (SIGKILL) and is started again.
      windows.worker = [Date.now(), 0];
      await workers[0].stop('SIGKILL');
      workers[0] = await start('dist/worker.js');
      windows.worker[1] = Date.now();
      await moreAnswers(30);
      // 2. An API is sent SIGTERM (drains, then exits) and replaced on its port.
      windows.api = [Date.now(), 0];
      const victim = apis.get(ports[1])!;
      victim.process.kill('SIGTERM');
      expect(await victim.exited()).toBe(0);
      apis.set(ports[1], await start('dist/main.js', { PORT: String(ports[1]) }));
      await moreAnswers(30);
      windows.api[1] = Date.now();
      // 3. Redis fails over through Sentinel: the old master is demoted and answers READONLY to stale connections.
      windows.redis = [Date.now(), 0];
      await redis.failover();
      await moreAnswers(30);
      windows.redis[1] = Date.now();
    } finally {
      await stream.stop();
    }

    // 4. Client connections kept idle through the balancer past Node's old 5 s keep-alive.
    const idle = await idleKeepAliveStatuses(new URL(`${front}/health/ready`), 10, 2);
    expect(idle.filter((status) => status !== 200)).toEqual([]);

    const histogram: Record<string, number> = {};
    for (const answer of stream.answers) histogram[answer.status] = (histogram[answer.status] ?? 0) + 1;
    process.stderr.write(`fleet e2e: ${stream.answers.length} answers through haproxy: ${JSON.stringify(histogram)}; windows ${JSON.stringify(Object.fromEntries(Object.entries(windows).map(([k, [a, b]]) => [k, b - a])))} ms\n`);
    const within = (at: number, [from, to]: [number, number]) => at >= from && at <= to + 1_000;
    // No 5xx but a 503 while Redis had no master; nothing at all failed while a worker or an API was replaced.
    expect(stream.answers.filter((a) => a.status !== 200 && !(a.status === 503 && within(a.at, windows.redis))).slice(0, 5)).toEqual([]);

    // Every order answered is recorded; every pending entry activates once and is delivered, promptly.
    expect(await db.count('SELECT 1 FROM orders WHERE id = ANY($1)', [ordered])).toBe(ordered.length);
    await waitFor(async () => ((await db.count("SELECT 1 FROM loyalty_pending_points WHERE status <> 'ACTIVATED'")) === 0 ? true : undefined), { timeoutMs: 60_000, intervalMs: 250 });
    expect(await db.count('SELECT 1 FROM loyalty_pending_points')).toBe(ordered.length);
    expect(await db.count("SELECT 1 FROM voucher_transactions WHERE type = 'PENDING_POINTS_ACTIVATION'")).toBe(ordered.length);
    const events = await db.query<{ id: string; created_at: Date }>('SELECT id, created_at FROM events WHERE type = $1', [ACTIVATED]);
    expect(events).toHaveLength(ordered.length);
    const received = () => receiver.on('/activated');
    await waitFor(async () => (new Set(received().map((r) => JSON.parse(r.body).event.id as string)).size >= events.length ? true : undefined), { timeoutMs: 60_000, intervalMs: 200 });
    const bodies = new Map<string, string>();
    for (const r of received()) {
      const id = String(r.headers['webhook-id']);
      expect([id, bodies.get(id) ?? r.body]).toEqual([id, r.body]);
      bodies.set(id, r.body);
    }
    const firstAt = new Map<string, number>();
    for (const r of received()) {
      const id = JSON.parse(r.body).event.id as string;
      firstAt.set(id, Math.min(firstAt.get(id) ?? Infinity, r.at));
    }
    const lags = events.map((event) => firstAt.get(event.id)! - event.created_at.getTime()).sort((x, y) => x - y);
    const p99 = lags[Math.min(lags.length - 1, Math.floor(lags.length * 0.99))];
    process.stderr.write(`fleet e2e: ${events.length} activations delivered, event → delivery p50 ${lags[Math.floor(lags.length / 2)]} ms, p99 ${p99} ms\n`);
    // Well inside the 30 s sweep: the relay's LISTEN on the session URL woke the dispatcher.
    expect(p99).toBeLessThan(10_000);
    expect(await db.brokenCards()).toEqual([]);
    const pooled = await bouncer.serverConnections();
    process.stderr.write(`fleet e2e: PgBouncer server connections ${pooled} (pool ${SERVER_POOL})\n`);
    expect(pooled).toBeLessThanOrEqual(SERVER_POOL);
    for (const child of processes) expect(child.output).not.toMatch(/"statusCode":500|internal_server_error|unsupported startup parameter/);
  }, 240_000);
});
