import type { INestApplicationContext } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Redis } from 'ioredis';
import pg from 'pg';
import { cohortOf } from '../../src/points/pending/activation-cohorts.js';
import { deleteKeysWithPrefix } from '../../src/queue/redis-keys.js';
import { type TestProject, createFinishedCampaign, createProject, http, startApi, startWorker, testConfig, waitFor } from '../support/harness.js';
import { TcpProxy } from '../support/tcp-proxy.js';

/**
 * Every sweep runs again after Redis comes back (issue 9). The card-generation sweep used to be a BullMQ job
 * scheduler whose next iteration lives in Redis: a reply lost in an outage delayed it by a minute or more,
 * and Redis losing its keys (a restart without persistence, a failover) stopped it for good. Sweeps now run
 * on the worker's timers and once more as soon as Redis is back.
 *
 * API and worker reach Redis through one proxy. Each round cuts Redis for a different time, makes work that
 * only a sweep can finish (campaigns whose card job could not be queued, a pending entry whose activation
 * job could not be scheduled), restores Redis and checks that it is finished soon. The card sweep keeps its
 * real 60 s interval, so waiting for its schedule would fail the bound; one round also deletes every key
 * of the run's queues while Redis is "down".
 */
describe('sweeps across Redis outages', () => {
  const real = testConfig();
  const proxy = new TcpProxy(new URL(real.redisUrl).hostname, Number(new URL(real.redisUrl).port || 6379));
  const direct = new Redis(real.redisUrl);
  const db = new pg.Client({ connectionString: real.databaseUrl });
  let app: NestExpressApplication;
  let worker: INestApplicationContext;
  let project: TestProject;
  /** Its entries are due in 10 days (3 s): the step that removes an entry's job before it is due has time on a loaded machine. */
  let later: TestProject;
  let campaignId: string;
  const consoleErrors: unknown[] = [];
  const originalConsoleError = console.error;
  let orders = 0;

  beforeAll(async () => {
    await db.connect();
    const redisUrl = new URL(real.redisUrl);
    redisUrl.host = `127.0.0.1:${await proxy.start()}`;
    const config = testConfig({ REDIS_URL: redisUrl.toString(), PENDING_POINTS_DAY_MS: '300', PENDING_POINTS_SWEEP_MS: '500' });
    app = await startApi(config);
    project = await createProject(app);
    campaignId = (await createFinishedCampaign<{ id: string }>(app, project, { name: 'Outage points', auto_join: true })).id;
    await http(app).post(`/v1/loyalties/${campaignId}/earning-rules`).set(project.headers).send([{ loyalty: { type: 'FIXED', points: 7 }, pending_points: { period_type: 'DAY', period_value: 1 } }]);
    later = await createProject(app);
    const laterCampaign = (await createFinishedCampaign<{ id: string }>(app, later, { name: 'Outage points, later', auto_join: true })).id;
    await http(app).post(`/v1/loyalties/${laterCampaign}/earning-rules`).set(later.headers).send([{ loyalty: { type: 'FIXED', points: 7 }, pending_points: { period_type: 'DAY', period_value: 10 } }]);
    console.error = (...args: unknown[]) => void consoleErrors.push(args[0]);
    worker = await startWorker(config);
  });
  afterAll(async () => {
    console.error = originalConsoleError;
    await worker.close();
    await app.close();
    await proxy.cut();
    direct.disconnect();
    await db.end();
  });

  /** A paid order's pending entry (of `who`: due in 300 ms, or 3 s for `later`), which gets no job while Redis is down; its id. */
  async function pendingEntry(who: TestProject = project): Promise<string> {
    orders += 1;
    const res = await http(app).post('/v1/orders').set(who.headers).send({ source_id: `outage-order-${orders}`, status: 'PAID', amount: 100, customer: { source_id: `outage-customer-${orders}` } }).timeout(10_000);
    expect(res.status).toBe(200);
    const { rows } = await db.query<{ id: string }>('SELECT id FROM loyalty_pending_points WHERE order_id = $1', [res.body.id]);
    expect(rows).toHaveLength(1);
    return rows[0].id;
  }
  const activated = async (id: string) => (await db.query<{ status: string }>('SELECT status FROM loyalty_pending_points WHERE id = $1', [id])).rows[0]?.status === 'ACTIVATED';

  const rounds = [
    { outageMs: 8_000, flush: false },
    { outageMs: 300, flush: false },
    { outageMs: 1_500, flush: false },
    { outageMs: 3_000, flush: false },
    { outageMs: 700, flush: true },
    { outageMs: 5_000, flush: false },
  ];

  it.each(rounds.map((round, i) => [i + 1, round.outageMs, round.flush] as const))('round %i (%i ms down, keys lost: %s): cards within 15 s of recovery, pending points activated by the sweep', async (_n, outageMs, flush) => {
    await proxy.cut();
    const cutAt = Date.now();
    const campaigns: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      const res = await http(app).post('/v1/loyalties').set(project.headers).send({ name: `outage ${Date.now()}-${i}`, vouchers_count: 5 }).timeout(10_000);
      expect(res.status).toBe(200);
      expect(res.body.vouchers_generation_status).toBe('IN_PROGRESS');
      campaigns.push(res.body.id);
    }
    const duringOutage = await pendingEntry();
    if (flush) await deleteKeysWithPrefix(real.redisUrl, real.queuePrefix);
    // The outage's length is what this round is about (not a wait for a state).
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, outageMs - (Date.now() - cutAt))));
    await proxy.restore();
    const restoredAt = Date.now();

    for (const id of campaigns) {
      await waitFor(async () => ((await http(app).get(`/v1/loyalties/${id}`).set(project.headers)).body.vouchers_generation_status === 'DONE' ? true : undefined), {
        timeoutMs: Math.max(1_000, 15_000 - (Date.now() - restoredAt)),
        intervalMs: 100,
      });
    }
    await waitFor(async () => ((await activated(duringOutage)) ? true : undefined), { timeoutMs: 10_000 });

    // After recovery too: an entry whose job Redis lost is still activated (by the sweep, its only path).
    await waitFor(async () => ((await http(app).get('/health/ready')).body.checks?.redis === 'up' ? true : undefined), { timeoutMs: 15_000 });
    const afterRecovery = await pendingEntry(later);
    // Its cohort's job removed before it is due (3 s): the sweep is then the only way it can be activated.
    const { rows } = await db.query<{ activates_at: Date }>('SELECT activates_at FROM loyalty_pending_points WHERE id = $1', [afterRecovery]);
    const { jobId } = cohortOf(later.project.id, rows[0].activates_at);
    expect(await direct.zrem(`${real.queuePrefix}:pending-points:delayed`, jobId)).toBe(1);
    await direct.del(`${real.queuePrefix}:pending-points:${jobId}`);
    await waitFor(async () => ((await activated(afterRecovery)) ? true : undefined), { timeoutMs: 20_000 });
  }, 90_000);

  it('printed nothing with console.error during the outages (connection loss and recovery are logged once, as JSON)', () => {
    expect(consoleErrors.map(String).filter((line) => /ECONNREFUSED|Connection is closed/.test(line))).toEqual([]);
  });
});
