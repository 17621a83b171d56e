import type { ChildProcess } from 'node:child_process';
import { useStack } from '../support/fixture.js';
import { startWorkerProcess, waitFor } from '../support/harness.js';
import { unique } from '../support/points.js';
import { sampleEventData } from '../support/sample-events.js';

const ACTIVATED = 'customer.voucher.loyalty_card.pending_points.activated' as const;
/** Retry 12 is due base·1440 after the first attempt: 7.2 s here. */
const BASE_MS = 5;

/**
 * Real worker processes (`node dist/worker.js`): two relaying and delivering the same events make one
 * delivery per (event, distribution); one killed with SIGKILL in the middle of 500 deliveries and started
 * again delivers every event at least once, a duplicate carrying the same webhook-id; and a target that
 * never answers 2xx exhausts the retries, which pauses its distribution until a PUT resumes it.
 */
describe('webhooks with worker processes', () => {
  // A request past WEBHOOK_TIMEOUT_MS is retried, and a claim past its lease (the timeout + 5 s) may be taken
  // by the other worker: both send a delivery again, as at-least-once allows, but this file counts requests
  // to prove that two workers never send one twice. With 2 s, a full run on an overloaded machine
  // counted 1,518 requests for 1,500 deliveries; 10 s keeps such slowness from passing for a second send.
  const env = { WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32', WEBHOOK_RETRY_BASE_MS: String(BASE_MS), WEBHOOK_TIMEOUT_MS: '10000', WEBHOOK_SWEEP_MS: '500', LOG_LEVEL: 'info' };
  const workers = new Set<ChildProcess>();
  const stack = useStack({
    config: { WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32' },
    receiver: true,
    projects: ['Webhook workers project'],
    pointsDb: true,
    beforeClose: () => {
      for (const worker of workers) worker.kill('SIGKILL');
    },
  });
  const { receiver, db } = stack;

  const startWorker = () => startWorkerProcess(env, workers);

  const distribution = async (path: string) => {
    const res = await stack.http().post('/v1/distributions').set(stack.a.headers).send({ name: unique('Distribution'), trigger: ACTIVATED, target_url: receiver.url(path) });
    expect(res.status).toBe(200);
    return res.body.id as string;
  };

  /** `count` activation events committed in one transaction (as an activation batch writes them); their ids. */
  async function events(count: number): Promise<string[]> {
    const rows = await db.query<{ id: string }>(
      `INSERT INTO events (id, project_id, type, entity_id, group_id, event_source, data)
       SELECT 'evcus_' || left(md5(random()::text || g), 18), $1, $2, 'cust_webhook_workers', 'v-workers', '{"channel":"INTERNAL"}', $4::json
       FROM generate_series(1, $3) g RETURNING id`,
      [stack.a.project.id, ACTIVATED, count, sampleEventData(ACTIVATED)],
    );
    return rows.map((row) => row.id);
  }

  it('a worker killed with SIGKILL in the middle of 500 deliveries, and two workers relaying: every event delivered, one delivery per event', async () => {
    const distributionId = await distribution('/kill');
    receiver.fallback = { status: 200, delayMs: 20 };
    const first = await startWorker();
    await startWorker();
    const ids = await events(500);
    await waitFor(async () => (receiver.on('/kill').length >= 100 ? true : undefined), { timeoutMs: 30_000 });
    first.kill('SIGKILL');
    await startWorker();
    const byEvent = () => new Map(receiver.on('/kill').map((r) => [JSON.parse(r.body).event.id as string, r]));
    await waitFor(async () => (byEvent().size >= ids.length ? true : undefined), { timeoutMs: 60_000, intervalMs: 200 });
    expect(new Set(byEvent().keys())).toEqual(new Set(ids));
    // Relayed once by two workers: one delivery per event, and every request of an event carries its id.
    const deliveries = await db.query<{ event_id: string; id: string }>('SELECT event_id, id FROM webhook_deliveries WHERE distribution_id = $1', [distributionId]);
    expect(deliveries).toHaveLength(ids.length);
    const deliveryOf = new Map(deliveries.map((d) => [d.event_id, d.id]));
    for (const request of receiver.on('/kill')) expect(request.headers['webhook-id']).toBe(deliveryOf.get(JSON.parse(request.body).event.id));
    await waitFor(async () => ((await db.count(`SELECT 1 FROM webhook_deliveries WHERE distribution_id = $1 AND status <> 'SUCCEEDED'`, [distributionId])) === 0 ? true : undefined), { timeoutMs: 30_000 });
    receiver.fallback = 200;
  }, 120_000);

  it('two workers dispatching the same bursts send every delivery once (5 rounds of 300 events; both workers send)', async () => {
    const alive = () => [...workers].filter((w) => w.exitCode === null && w.signalCode === null);
    while (alive().length < 2) await startWorker();
    const distributionId = await distribution('/race');
    // Slow enough answers that a burst is still being sent when the other worker's dispatcher wakes.
    receiver.fallback = { status: 200, delayMs: 10 };
    for (let round = 1; round <= 5; round += 1) {
      await events(300);
      const succeeded = () => db.count(`SELECT 1 FROM webhook_deliveries WHERE distribution_id = $1 AND status = 'SUCCEEDED'`, [distributionId]);
      await waitFor(async () => ((await succeeded()) === round * 300 ? true : undefined), { timeoutMs: 30_000, intervalMs: 100 });
    }
    receiver.fallback = 200;
    const requests = receiver.on('/race');
    expect(requests).toHaveLength(1_500);
    expect(new Set(requests.map((r) => r.headers['webhook-id'])).size).toBe(1_500);
    expect(await db.count('SELECT 1 FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.distribution_id = $1', [distributionId])).toBe(1_500);
    // Both dispatchers took part (two keep-alive pools: requests came from more than 64 client ports).
    expect(new Set(requests.map((r) => r.remotePort)).size).toBeGreaterThan(64);
  }, 120_000);

  it("a dispatcher whose PostgreSQL connection is terminated reconnects and sends what is due", async () => {
    if (![...workers].some((w) => w.exitCode === null && w.signalCode === null)) await startWorker();
    const distributionId = await distribution('/reconnect');
    const succeeded = (n: number) => async () =>
      (await db.count(`SELECT 1 FROM webhook_deliveries WHERE distribution_id = $1 AND status = 'SUCCEEDED'`, [distributionId])) === n ? true : undefined;
    await events(50);
    await waitFor(succeeded(50), { timeoutMs: 30_000, intervalMs: 100 });
    const terminated = await db.query<{ ok: boolean }>(
      `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = 'loyalty-webhook-dispatcher' AND datname = current_database()`,
    );
    expect(terminated.length).toBeGreaterThan(0);
    expect(terminated.every((row) => row.ok)).toBe(true);
    await events(50);
    await waitFor(succeeded(100), { timeoutMs: 30_000, intervalMs: 100 });
    expect(new Set(receiver.on('/reconnect').map((r) => r.headers['webhook-id'])).size).toBe(100);
  }, 60_000);

  it('the last retry failing fails the delivery and pauses the distribution; a PUT to ACTIVE sends what waited', async () => {
    if (workers.size === 0) await startWorker();
    const distributionId = await distribution('/down');
    receiver.script('/down', ...Array.from({ length: 13 }, () => 503));
    const [eventId] = await events(1);
    const failed = await waitFor(
      async () => {
        const [row] = await db.query<{ id: string; status: string; attempts_count: number }>('SELECT id, status, attempts_count FROM webhook_deliveries WHERE event_id = $1 AND distribution_id = $2', [eventId, distributionId]);
        return row?.status === 'FAILED' ? row : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(failed.attempts_count).toBe(13);
    const requests = receiver.on('/down');
    expect(requests).toHaveLength(13);
    // Retry 12 comes base·1440 after the first attempt.
    expect(requests[12].at - requests[0].at).toBeGreaterThanOrEqual(BASE_MS * 1440 - 50);
    const paused = (await stack.http().get(`/v1/distributions/${distributionId}`).set(stack.a.headers)).body;
    expect(paused.status).toBe('PAUSED');

    // Paused: an event makes no delivery. Resumed: the next ones are delivered again.
    const [whilePaused] = await events(1);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await db.count('SELECT 1 FROM webhook_deliveries WHERE event_id = $1 AND distribution_id = $2', [whilePaused, distributionId])).toBe(0);
    const resumed = await stack.http().put(`/v1/distributions/${distributionId}`).set(stack.a.headers).send({ status: 'ACTIVE' });
    expect(resumed.body.status).toBe('ACTIVE');
    const [afterResume] = await events(1);
    await waitFor(async () => (receiver.on('/down').some((r) => JSON.parse(r.body).event.id === afterResume) ? true : undefined), { timeoutMs: 15_000 });
  }, 60_000);
});
