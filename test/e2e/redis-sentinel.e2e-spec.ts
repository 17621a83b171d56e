/**
 * @heavy real servers and several processes through failovers and restarts: never beside another heavy file (test/setup/file-environment.mjs).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { dropDatabase } from '../../src/database/ensure-database.js';
import { Child, RequestStream } from '../support/child.js';
import { BINARIES, askRedis, keyedCalls, programWithMembers, startSentinelRedis } from '../support/fleet.js';
import { freePort, testConfig, waitFor } from '../support/harness.js';
import { PointsDb, unique } from '../support/points.js';
import { Receiver } from '../support/receiver.js';

const REDIS_SERVER = BINARIES.redis;
const REDIS_SENTINEL = BINARIES.sentinel;
const MASTER = 'loyalty-test';
const ACTIVATED = 'customer.voucher.loyalty_card.pending_points.activated';
const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;

const missing = [REDIS_SERVER, REDIS_SENTINEL].filter((path) => !existsSync(path));
if (missing.length) process.stderr.write(`test/e2e/redis-sentinel.e2e-spec.ts skipped: ${missing.join(', ')} missing (apt-get install redis-server redis-sentinel; .ci/run installs them)\n`);

/**
 * Redis under Sentinel, on real servers: a master, two replicas and three sentinels on free ports, an API and a
 * worker configured with REDIS_SENTINELS only (REDIS_URL points nowhere). Under a steady stream of paid orders
 * with pending points and member reads, the master is failed over twice: by SENTINEL FAILOVER (the old master is
 * demoted and stays up, answering READONLY to whoever still writes to it) and by SIGKILL of the new master (the
 * sentinels notice and promote the other). No answer is a 500 (a refused or failed write is a 503), every order
 * answered 200 is recorded, every pending entry activates (through the queues, which followed the master), every
 * activation is delivered to its webhook, the limiter counts again, the heartbeat is read through the sentinels,
 * and the cards' invariants hold.
 */
(missing.length ? describe.skip : describe)(`Redis Sentinel failover (${missing.length ? `skipped: ${missing.join(', ')} missing` : 'redis-server + redis-sentinel'})`, () => {
  const config = testConfig();
  const database = new URL(config.databaseUrl);
  database.pathname = `${database.pathname}_sentinel`;
  const dir = mkdtempSync(join(tmpdir(), 'loyalty-sentinel-'));
  const receiver = new Receiver();
  const children: Child[] = [];
  const sentinelPorts: number[] = [];
  const prefix = `${config.queuePrefix}_sentinel`;
  const appId = 'sentinel-app';
  const appToken = 'sentinel-token-0123456789abcdef';
  let db: PointsDb;
  let base = '';

  const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
    ...process.env,
    DATABASE_URL: database.toString(),
    DATABASE_SESSION_URL: '',
    REDIS_URL: 'redis://127.0.0.1:1',
    REDIS_SENTINELS: sentinelPorts.map((port) => `127.0.0.1:${port}`).join(','),
    REDIS_SENTINEL_NAME: MASTER,
    QUEUE_PREFIX: prefix,
    LOG_LEVEL: 'info',
    BOOTSTRAP_APP_ID: appId,
    BOOTSTRAP_APP_TOKEN: appToken,
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
    PENDING_POINTS_DAY_MS: '2000',
    // Jobs a failover lost are the sweeps' to find: every 3 s here (60 s and 30 s by default).
    PENDING_POINTS_SWEEP_MS: '3000',
    WEBHOOK_SWEEP_MS: '3000',
    // A request the receiver (this busy test process) leaves unanswered is retried within a second or two.
    WEBHOOK_TIMEOUT_MS: '2000',
    WEBHOOK_RETRY_BASE_MS: '500',
    ...extra,
  });

  const { call, ok } = keyedCalls(appId, appToken, () => base);

  let masterPort: () => Promise<number | undefined>;
  let settled: () => Promise<boolean>;
  let servers: Map<number, Child>;
  const ask = askRedis;

  beforeAll(async () => {
    await dropDatabase(database.toString());
    await receiver.start();
    const redis = await startSentinelRedis(dir, MASTER, children);
    ({ masterPort, settled, servers } = redis);
    sentinelPorts.push(...redis.sentinels.split(',').map((address) => Number(address.split(':')[1])));
    db = new PointsDb(database.toString());
  }, 60_000);

  afterAll(async () => {
    await db?.end().catch(() => undefined);
    for (const child of children.reverse()) await child.stop();
    await receiver.stop();
    await dropDatabase(database.toString());
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('an API and a worker on REDIS_SENTINELS go on through two failovers: no 500, every order recorded, every pending entry activated and delivered', async () => {
    const port = await freePort();
    const api = new Child(process.execPath, ['dist/main.js'], env({ PORT: String(port) }));
    children.push(api);
    await api.waitFor('API ready');
    // A ping whose job a failover lost is enqueued again by the worker's sweep, which runs often here.
    const worker = new Child(process.execPath, ['dist/worker.js'], env({ DIAGNOSTIC_PING_SWEEP_MS: '1000' }));
    children.push(worker);
    await worker.waitFor('Worker ready');
    base = `http://127.0.0.1:${port}`;
    await db.connect();

    const { customers, codes } = await programWithMembers(ok, 'Sentinel', [{ loyalty: { type: 'FIXED', points: 10 }, pending_points: { period_type: 'DAY', period_value: 1 } }], 4);
    await ok('POST', '/v1/distributions', { name: unique('Activated'), trigger: ACTIVATED, target_url: receiver.url('/activated') });

    const ordered: string[] = [];
    const pings: string[] = [];
    const stream = new RequestStream(async (i) => {
      if (i % 4 === 2) {
        const res = await call('GET', `/v1/loyalties/members/${codes[i % codes.length]}`);
        return { status: res.status, what: `read ${JSON.stringify(res.body).slice(0, 200)}` };
      }
      if (i % 4 === 3) {
        // A write that needs Redis there and then (its job is enqueued in the request): 200, or 503 while no master takes it.
        const res = await call('POST', '/v1/diagnostics/pings', { note: 'during failover' });
        if (res.status === 200) pings.push(String(res.body.id));
        return { status: res.status, what: `ping ${JSON.stringify(res.body).slice(0, 200)}` };
      }
      const res = await call('POST', '/v1/orders', { status: 'PAID', amount: 1000, customer: { source_id: customers[i % customers.length] } });
      if (res.status === 200) ordered.push(String(res.body.id));
      return { status: res.status, what: `order ${JSON.stringify(res.body).slice(0, 200)}` };
    });
    stream.start(2, 40);
    try {
      const first = (await masterPort())!;
      await waitFor(async () => (stream.count((s) => s === 200) > 20 ? true : undefined));

      // 1. A manual failover: the old master is demoted and stays up (READONLY to stale connections).
      await ask(sentinelPorts[0], 'SENTINEL', 'failover', MASTER);
      const second = await waitFor(async () => {
        const now = await masterPort();
        return now !== undefined && now !== first ? now : undefined;
      }, { timeoutMs: 20_000, intervalMs: 100 });
      const afterFirst = stream.answers.length;
      await waitFor(async () => (stream.answers.slice(afterFirst).filter((a) => a.status === 200).length > 15 ? true : undefined), { timeoutMs: 30_000, intervalMs: 100 });
      await waitFor(async () => ((await settled()) ? true : undefined), { timeoutMs: 30_000, intervalMs: 200 });

      // 2. The new master dies: the sentinels promote the other one.
      servers.get(second)!.process.kill('SIGKILL');
      await waitFor(async () => {
        const now = await masterPort();
        return now !== undefined && now !== second ? now : undefined;
      }, { timeoutMs: 30_000, intervalMs: 100 });
      const afterSecond = stream.answers.length;
      await waitFor(async () => (stream.answers.slice(afterSecond).filter((a) => a.status === 200).length > 15 ? true : undefined), { timeoutMs: 30_000, intervalMs: 100 });
    } finally {
      await stream.stop();
    }

    const statuses = new Map<number, number>();
    for (const answer of stream.answers) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    const streamed = stream.answers.length ? stream.answers[stream.answers.length - 1].at - stream.answers[0].at : 0;
    process.stderr.write(`redis-sentinel e2e: ${stream.answers.length} answers in ${streamed} ms through two failovers: ${JSON.stringify(Object.fromEntries(statuses))}\n`);
    // A write Redis refused or could not take is a 503 (CONTRACT's shape), never a 500.
    expect(stream.answers.filter((a) => a.status !== 200 && a.status !== 503).slice(0, 5)).toEqual([]);
    for (const refused of stream.answers.filter((a) => a.status === 503).slice(0, 3)) expect(refused.what).toMatch(/"code":503,"key":"service_unavailable"/);

    // After the failovers: a write goes through at once, the limiter counts again (its header), the heartbeat reads through the sentinels.
    const after = await call('POST', '/v1/orders', { status: 'PAID', amount: 1000, customer: { source_id: customers[0] } });
    expect(after.status).toBe(200);
    ordered.push(String(after.body.id));
    await waitFor(async () => ((await call('GET', `/v1/loyalties/members/${codes[0]}`)).headers.get('x-rate-limit-remaining') !== null ? true : undefined), { timeoutMs: 20_000, intervalMs: 200 }).catch((error: Error) => {
      throw new Error(`the limiter: ${error.message}\n--- API ---\n${api.output.split('\n').filter((line) => /Redis|redis|limit/.test(line)).join('\n').slice(-6000)}`);
    });
    // A CLI start takes seconds on a loaded machine: the bound leaves room for several tries past one beat (5 s) and one TTL (15 s).
    let lastHealth = '';
    await waitFor(async () => {
      const health = await run(process.execPath, ['dist/cli.js', 'worker-health', '--any'], { cwd: root, env: env({ LOG_LEVEL: 'warn' }), timeout: 20_000 }).catch((error: { code?: number; stdout?: string; stderr?: string }) => {
        lastHealth = `exit ${error.code}: ${error.stdout ?? ''}${error.stderr ?? ''}`;
        return null;
      });
      return health ? true : undefined;
    }, { timeoutMs: 45_000, intervalMs: 500 }).catch((error: Error) => {
      const lines = worker.output.split('\n').filter((line) => /Heartbeat|Redis|redis/.test(line));
      throw new Error(`worker-health --any: ${error.message}; last answer ${lastHealth}\n--- worker's Redis lines ---\n${lines.join('\n').slice(-6000)}`);
    });
    expect(worker.alive && api.alive).toBe(true);
    // What the heartbeat went through (its lines are rare: a failover in CI left it without a connection once).
    const heartbeatLines = worker.output.split('\n').filter((line) => line.includes('"context":"Heartbeat"'));
    process.stderr.write(`redis-sentinel e2e: worker heartbeat lines: ${heartbeatLines.length ? `\n${heartbeatLines.join('\n')}` : 'none'}\n`);

    // Every order answered 200 is recorded; every pending entry activates (by its job, or the sweep the restored connection ran) and is delivered.
    const recorded = await db.query<{ id: string }>('SELECT id FROM orders WHERE id = ANY($1)', [ordered]);
    expect(recorded).toHaveLength(ordered.length);
    const entries = await db.count('SELECT 1 FROM loyalty_pending_points');
    expect(entries).toBeGreaterThanOrEqual(ordered.length);
    await waitFor(async () => ((await db.count("SELECT 1 FROM loyalty_pending_points WHERE status <> 'ACTIVATED'")) === 0 ? true : undefined), { timeoutMs: 60_000, intervalMs: 250 });
    const events = await db.query<{ id: string }>('SELECT id FROM events WHERE type = $1', [ACTIVATED]);
    expect(events).toHaveLength(entries);
    const delivered = () => new Set(receiver.on('/activated').map((request) => JSON.parse(request.body).event.id as string));
    await waitFor(async () => (events.every((event) => delivered().has(event.id)) ? true : undefined), { timeoutMs: 30_000, intervalMs: 200 }).catch(async (error: Error) => {
      const deliveries = await db.query('SELECT status, count(*)::int AS n FROM webhook_deliveries GROUP BY status');
      throw new Error(`${error.message}: ${delivered().size} of ${events.length} delivered; deliveries ${JSON.stringify(deliveries)}\n--- worker ---\n${worker.output.slice(-3000)}`);
    });
    // Every ping accepted was run by the worker (by its job, or by the job the sweep enqueued again when a failover lost the first).
    await waitFor(async () => ((await db.count("SELECT 1 FROM diagnostic_pings WHERE id = ANY($1) AND status = 'DONE'", [pings])) === pings.length ? true : undefined), { timeoutMs: 20_000, intervalMs: 200 }).catch(async (error: Error) => {
      const queued = await db.query<{ id: string }>("SELECT id FROM diagnostic_pings WHERE id = ANY($1) AND status = 'QUEUED' ORDER BY created_at", [pings]);
      throw new Error(`${error.message}: ${queued.length} of ${pings.length} pings still QUEUED: ${queued.map((ping) => ping.id).join(', ')}\n--- worker ---\n${worker.output.slice(-3000)}`);
    });
    expect(await db.brokenCards()).toEqual([]);
    expect(api.output).not.toMatch(/"statusCode":500|internal_server_error/);
  }, 180_000);
});
