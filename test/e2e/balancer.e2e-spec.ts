/**
 * @heavy real servers and several processes through failovers and restarts: never beside another heavy file (test/setup/file-environment.mjs).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropDatabase } from '../../src/database/ensure-database.js';
import { Child, RequestStream } from '../support/child.js';
import { BINARIES, idleKeepAliveStatuses, keyedCalls, programWithMembers, startHaproxy } from '../support/fleet.js';
import { freePort, testConfig, waitFor } from '../support/harness.js';
import { PointsDb } from '../support/points.js';

const HAPROXY = BINARIES.haproxy;
const available = existsSync(HAPROXY);
if (!available) process.stderr.write(`test/e2e/balancer.e2e-spec.ts skipped: ${HAPROXY} is missing (apt-get install haproxy; .ci/run installs it)\n`);

/** The drain of the APIs here: longer than haproxy's time to take a server out (2 failed checks 300 ms apart, plus one). */
const DRAIN_MS = 2_000;

/**
 * Three API processes and a worker behind a real haproxy that checks `/health/ready` (docs/scaling.md, "Shutdown and
 * keep-alive behind a balancer"): under a steady stream of paid orders and member reads one API is sent SIGTERM and
 * replaced, and not one request through the balancer fails (SHUTDOWN_DRAIN_MS: the API serves on while its
 * readiness is 503, until haproxy has taken it out); client connections kept idle through the balancer past Node's
 * old 5 s keep-alive get no 502 (HTTP_KEEP_ALIVE_TIMEOUT_MS above haproxy's idle timeouts).
 */
(available ? describe : describe.skip)(`APIs behind haproxy (${available ? HAPROXY : `skipped: ${HAPROXY} is missing`})`, () => {
  const config = testConfig();
  const database = new URL(config.databaseUrl);
  database.pathname = `${database.pathname}_balancer`;
  const dir = mkdtempSync(join(tmpdir(), 'loyalty-haproxy-'));
  const children: Child[] = [];
  const appId = 'balancer-app';
  const appToken = 'balancer-token-0123456789abcdef';
  let front = '';
  let ports: number[] = [];
  const apis = new Map<number, Child>();
  let db: PointsDb;

  const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
    ...process.env,
    DATABASE_URL: database.toString(),
    DATABASE_SESSION_URL: '',
    QUEUE_PREFIX: `${config.queuePrefix}_balancer`,
    LOG_LEVEL: 'info',
    BOOTSTRAP_APP_ID: appId,
    BOOTSTRAP_APP_TOKEN: appToken,
    RATE_LIMIT_PER_SECOND: '0',
    SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
    SHUTDOWN_TIMEOUT_MS: '15000',
    // Above haproxy's idle timeouts (timeout http-keep-alive and server, 30 s): haproxy closes an idle connection first.
    HTTP_KEEP_ALIVE_TIMEOUT_MS: '65000',
    ...extra,
  });
  const startApi = async (port: number) => {
    const api = new Child(process.execPath, ['dist/main.js'], env({ PORT: String(port) }));
    children.push(api);
    apis.set(port, api);
    await api.waitFor('API ready');
    return api;
  };
  const { call, ok } = keyedCalls(appId, appToken, () => front);

  beforeAll(async () => {
    await dropDatabase(database.toString());
    ports = [await freePort(), await freePort(), await freePort()];
    // The first migrates; the others start at once after it (the advisory lock would serialize them anyway).
    await startApi(ports[0]);
    await Promise.all(ports.slice(1).map((port) => startApi(port)));
    const worker = new Child(process.execPath, ['dist/worker.js'], env());
    children.push(worker);
    await worker.waitFor('Worker ready');
    front = await startHaproxy(dir, ports, children);
    db = new PointsDb(database.toString());
    await db.connect();
  }, 120_000);

  afterAll(async () => {
    await db?.end().catch(() => undefined);
    for (const child of children.reverse()) await child.stop();
    await dropDatabase(database.toString());
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('SIGTERM to one API under a steady stream, then its replacement: 0 client errors through the balancer', async () => {
    const { customers, codes } = await programWithMembers(ok, 'Balancer', [{ loyalty: { type: 'FIXED', points: 10 } }], 4);
    const ordered: string[] = [];
    const stream = new RequestStream(async (i) => {
      if (i % 2 === 1) {
        const res = await call('GET', `/v1/loyalties/members/${codes[i % codes.length]}`);
        return { status: res.status, what: `read ${JSON.stringify(res.body).slice(0, 200)}` };
      }
      const res = await call('POST', '/v1/orders', { status: 'PAID', amount: 1000, customer: { source_id: customers[i % customers.length] } });
      if (res.status === 200) ordered.push(String(res.body.id));
      return { status: res.status, what: `order ${JSON.stringify(res.body).slice(0, 200)}` };
    });
    stream.start(3, 20);
    let stopped: number | string | undefined;
    let stoppedInMs: number | undefined;
    try {
      await waitFor(async () => (stream.count((s) => s === 200) > 50 ? true : undefined));
      const victim = apis.get(ports[1])!;
      const started = Date.now();
      victim.process.kill('SIGTERM');
      stopped = await victim.exited();
      stoppedInMs = Date.now() - started;
      // Its replacement on the same port: haproxy takes it back in once its readiness answers 200.
      await startApi(ports[1]);
      const at = stream.answers.length;
      await waitFor(async () => (stream.answers.length > at + 100 ? true : undefined), { timeoutMs: 20_000 });
    } finally {
      await stream.stop();
    }
    const failed = stream.answers.filter((answer) => answer.status !== 200);
    process.stderr.write(`balancer e2e: ${stream.answers.length} requests through haproxy, SIGTERM → exit ${String(stopped)} in ${stoppedInMs} ms, ${failed.length} failed\n`);
    expect(failed.slice(0, 5)).toEqual([]);
    expect(stopped).toBe(0);
    // The drain, then the close: the API served on for SHUTDOWN_DRAIN_MS, and stopped well within SHUTDOWN_TIMEOUT_MS.
    expect(stoppedInMs).toBeGreaterThanOrEqual(DRAIN_MS);
    expect(stoppedInMs).toBeLessThan(10_000);
    const recorded = await db.query<{ id: string }>('SELECT id FROM orders WHERE id = ANY($1)', [ordered]);
    expect(recorded).toHaveLength(ordered.length);
    expect(await db.brokenCards()).toEqual([]);
  }, 120_000);

  it('client connections kept idle through the balancer past 5 s: 0 × 502', async () => {
    const statuses = await idleKeepAliveStatuses(new URL(`${front}/health/ready`), 20, 3);
    process.stderr.write(`balancer e2e: ${statuses.length} requests on connections idle 6 s between rounds: ${JSON.stringify(statuses.reduce<Record<number, number>>((n, s) => ({ ...n, [s]: (n[s] ?? 0) + 1 }), {}))}\n`);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
  }, 60_000);
});
