import { DataSource } from 'typeorm';
import { DataCipher } from '../../src/common/crypto/data-cipher.js';
import { TransactionRunner } from '../../src/database/transaction-runner.js';
import { WORK_BATCH } from '../../src/events/delivery/worker/webhook-housekeeping.js';
import { RECOVER_BATCH, RECOVER_PLAN, WebhookWorkRepository } from '../../src/events/delivery/worker/webhook-work.repository.js';
import { WorkerDeliveryRepository } from '../../src/events/delivery/worker/worker-delivery.repository.js';
import { JobQueueService } from '../../src/queue/job-queue.service.js';
import { QueueName } from '../../src/queue/queue.definitions.js';
import { useStack } from '../support/fixture.js';
import { type TestProject, createProject, waitFor } from '../support/harness.js';
import { unique } from '../support/points.js';
import { sampleEventData } from '../support/sample-events.js';

const ACTIVATED = 'customer.voucher.loyalty_card.pending_points.activated' as const;

/** Every node of an EXPLAIN (FORMAT JSON) plan. */
function planNodes(plan: unknown): Record<string, unknown>[] {
  const nodes: Record<string, unknown>[] = [];
  const walk = (node: Record<string, unknown>) => {
    nodes.push(node);
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
  };
  for (const root of plan as { Plan: Record<string, unknown> }[]) walk(root.Plan);
  return nodes;
}
const MAX_DISTRIBUTIONS = 3;
const RELAY_MAX_DELIVERIES = 7;

/**
 * Issue 26, bounded work: a project has at most WEBHOOK_MAX_DISTRIBUTIONS_PER_PROJECT distributions (race
 * safe), a relay batch makes at most WEBHOOK_RELAY_MAX_DELIVERIES deliveries, and recover, resume and
 * delete answer without per-delivery work in the request (no queue job per delivery; the worker does the
 * rows in batches, also after a restart).
 */
describe('webhooks: bounded work per request and per batch', () => {
  const stack = useStack({
    config: {
      WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
      WEBHOOK_MAX_DISTRIBUTIONS_PER_PROJECT: String(MAX_DISTRIBUTIONS),
      WEBHOOK_RELAY_MAX_DELIVERIES: String(RELAY_MAX_DELIVERIES),
      WEBHOOK_SWEEP_MS: '500',
    },
    receiver: true,
    worker: true,
    pointsDb: true,
  });
  const { receiver, db } = stack;

  const stopWorker = () => stack.stopWorker();
  const create = (who: TestProject, path: string, body: object = {}) =>
    stack.http().post('/v1/distributions').set(who.headers).send({ name: unique('Distribution'), trigger: ACTIVATED, target_url: receiver.url(path), ...body });
  const distribution = async (who: TestProject, path: string, body: object = {}) => {
    const res = await create(who, path, body);
    expect(res.status).toBe(200);
    return res.body.id as string;
  };
  /** `count` activation events of the project committed in one transaction; their ids. */
  const events = async (who: TestProject, count: number) =>
    (
      await db.query<{ id: string }>(
        `INSERT INTO events (id, project_id, type, entity_id, group_id, event_source, data)
         SELECT 'evcus_' || left(md5(random()::text || g), 18), $1, $2, 'cust_bounded', 'v-bounded', '{"channel":"INTERNAL"}', $4::json
         FROM generate_series(1, $3) g RETURNING id`,
        [who.project.id, ACTIVATED, count, sampleEventData(ACTIVATED)],
      )
    ).map((row) => row.id);
  /** Deliveries of these events to the distribution, made as the relay makes them, in `status`. */
  const deliveries = (who: TestProject, distributionId: string, eventIds: string[], status: 'FAILED' | 'PENDING' | 'SUCCEEDED') =>
    db.query(
      `INSERT INTO webhook_deliveries (id, project_id, distribution_id, event_id, event_type, status, attempts_count, next_attempt_at)
       SELECT 'whs_' || left(md5(e), 18), $1, $2, e, $3, $4, CASE WHEN $4 = 'PENDING' THEN 0 ELSE 1 END, NULL FROM unnest($5::text[]) e`,
      [who.project.id, distributionId, ACTIVATED, status, eventIds],
    );
  /** Delivery jobs in the queue (any state but finished). */
  const queuedJobs = async () => {
    const counts = await stack.app.get(JobQueueService).queue(QueueName.Webhooks).getJobCounts('waiting', 'delayed', 'active', 'prioritized', 'waiting-children');
    return Object.values(counts).reduce((a, b) => a + b, 0);
  };
  /** The requests a path received, by webhook-id. */
  const byDelivery = (path: string) => {
    const seen = new Map<string, number>();
    for (const r of receiver.on(path)) seen.set(String(r.headers['webhook-id']), (seen.get(String(r.headers['webhook-id'])) ?? 0) + 1);
    return seen;
  };

  it(`at most ${MAX_DISTRIBUTIONS} distributions per project: 10 parallel creates, exactly ${MAX_DISTRIBUTIONS} made, the rest 409 limit_exceeded; another project unaffected; a deleted one frees its slot at once`, async () => {
    const project = await createProject(stack.app, 'Limit project');
    const other = await createProject(stack.app, 'Other limit project');
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => create(project, `/limit-${i}`)));
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses).toEqual([...Array(MAX_DISTRIBUTIONS).fill(200), ...Array(10 - MAX_DISTRIBUTIONS).fill(409)]);
    for (const res of answers.filter((r) => r.status === 409)) {
      expect(res.body).toMatchObject({ code: 409, key: 'limit_exceeded', message: 'Limit exceeded', resource_type: 'distributions' });
      expect(res.body.details).toMatch(new RegExp(`at most ${MAX_DISTRIBUTIONS} distributions`));
    }
    const listed = await stack.http().get('/v1/distributions').query({ limit: 100 }).set(project.headers);
    expect(listed.body.data).toHaveLength(MAX_DISTRIBUTIONS);

    // Another project has its own limit.
    expect((await create(other, '/limit-other')).status).toBe(200);
    // Paused and disabled ones count; deleted ones stop counting at once.
    const [first] = answers.filter((r) => r.status === 200).map((r) => r.body.id as string);
    expect((await stack.http().put(`/v1/distributions/${first}`).set(project.headers).send({ status: 'PAUSED' })).status).toBe(200);
    expect((await create(project, '/limit-more')).status).toBe(409);
    expect((await stack.http().delete(`/v1/distributions/${first}`).set(project.headers)).status).toBe(204);
    expect((await create(project, '/limit-more')).status).toBe(200);
    expect((await create(project, '/limit-more')).status).toBe(409);
  });

  it(`a relay batch makes at most ${RELAY_MAX_DELIVERIES} deliveries: 3 distributions × 80 events, each pair delivered exactly once, in many batches`, async () => {
    const project = await createProject(stack.app, 'Relay bound project');
    const paths = ['/fan-1', '/fan-2', '/fan-3'];
    const ids = await Promise.all(paths.map((path) => distribution(project, path)));
    // Batch by batch, with no worker relaying meanwhile: the relay's statement as the worker runs it.
    await stopWorker();
    const first = await events(project, 20);
    const batches: { relayed: number; deliveries: number; more: boolean }[] = [];
    const relay = new WorkerDeliveryRepository(stack.app.get(DataSource), stack.app.get(DataCipher));
    for (;;) {
      const batch = await stack.app.get(TransactionRunner).run((tx) => relay.relay(tx, 1_000, RELAY_MAX_DELIVERIES));
      batches.push(batch);
      if (!batch.more) break;
    }
    expect(batches.reduce((n, b) => n + b.deliveries, 0)).toBe(first.length * ids.length);
    // 3 deliveries an event, at most 7 a batch: 2 events (6 deliveries) a batch, 10 batches.
    expect(batches).toHaveLength(first.length / 2);
    batches.forEach((batch, i) => expect(batch).toMatchObject({ relayed: 2, deliveries: 6, more: i < batches.length - 1 }));

    // The worker relays with WEBHOOK_RELAY_MAX_DELIVERIES from the configuration, and sends each pair once.
    await stack.startWorker();
    const eventIds = [...first, ...(await events(project, 60))];
    await waitFor(async () => (paths.every((path) => receiver.on(path).length >= eventIds.length) ? true : undefined), { timeoutMs: 60_000, intervalMs: 100 });
    for (const path of paths) {
      const got = receiver.on(path).map((r) => JSON.parse(r.body).event.id as string);
      expect(got.sort()).toEqual([...eventIds].sort());
    }
    const rows = await db.query<{ distribution_id: string; event_id: string; created_at: string }>(
      `SELECT distribution_id, event_id, created_at::text FROM webhook_deliveries WHERE distribution_id = ANY($1::text[])`,
      [ids],
    );
    expect(rows).toHaveLength(ids.length * eventIds.length);
    expect(new Set(rows.map((r) => `${r.distribution_id}|${r.event_id}`)).size).toBe(rows.length);
    // A delivery's created_at is its relay transaction's start: the worker's 60 events took many
    // transactions (not asserted one by one: two batches may start within the same millisecond).
    const workerRows = rows.filter((r) => !first.includes(r.event_id));
    expect(new Set(workerRows.map((r) => r.created_at)).size).toBeGreaterThan(5);
  }, 90_000);

  it('recover over 2,000 FAILED deliveries and resume over 500 parked ones add no queue job in the request; the worker then sends each once', async () => {
    const project = await createProject(stack.app, 'Recover project');
    const recovered = await distribution(project, '/recover', { status: 'PAUSED' });
    const resumed = await distribution(project, '/resume', { status: 'PAUSED' });
    const failed = await events(project, 2_000);
    const parked = await events(project, 500);
    await deliveries(project, recovered, failed, 'FAILED');
    await deliveries(project, resumed, parked, 'PENDING');
    expect((await stack.http().put(`/v1/distributions/${recovered}`).set(project.headers).send({ status: 'ACTIVE' })).status).toBe(200);
    // No worker runs: whatever the requests queue stays in the queue.
    await stopWorker();
    const jobsBefore = await queuedJobs();

    let started = Date.now();
    const recover = await stack.http().post(`/v1/distributions/${recovered}/recover`).set(project.headers).send({ since: '1970-01-01T00:00:00Z' });
    const recoverMs = Date.now() - started;
    expect(recover.status).toBe(200);
    expect(recover.body).toEqual({ object: 'webhook_recovery', distribution_id: recovered, since: '1970-01-01T00:00:00.000Z', deliveries_count: 2_000 });
    started = Date.now();
    const resume = await stack.http().put(`/v1/distributions/${resumed}`).set(project.headers).send({ status: 'ACTIVE' });
    const resumeMs = Date.now() - started;
    expect(resume.status).toBe(200);
    process.stdout.write(`recover of 2,000 answered in ${recoverMs} ms, resume of 500 in ${resumeMs} ms\n`);
    expect(await queuedJobs()).toBe(jobsBefore);

    // The worker (started again: the work is recorded, not lost with the notification) sends each once.
    await stack.startWorker();
    await waitFor(async () => (byDelivery('/recover').size >= failed.length && byDelivery('/resume').size >= parked.length ? true : undefined), { timeoutMs: 90_000, intervalMs: 200 });
    const pending = () => db.count(`SELECT 1 FROM webhook_deliveries WHERE distribution_id = ANY($1::text[]) AND status <> 'SUCCEEDED'`, [[recovered, resumed]]);
    await waitFor(async () => ((await pending()) === 0 ? true : undefined), { timeoutMs: 30_000, intervalMs: 200 }).catch(async (error: Error) => {
      // Failed once in a full run (2026-11-29): every delivery had reached the receiver, some were not SUCCEEDED 30 s later.
      const left = await db.query(
        `SELECT d.status, count(*)::int AS n, max(a.status_code) AS code, max(a.duration_ms) AS ms, max(a.error) AS error
           FROM webhook_deliveries d LEFT JOIN webhook_attempts a ON a.delivery_id = d.id
          WHERE d.distribution_id = ANY($1::text[]) AND d.status <> 'SUCCEEDED' GROUP BY d.status`,
        [[recovered, resumed]],
      );
      throw new Error(`${error.message}: deliveries not SUCCEEDED, with their attempts: ${JSON.stringify(left)}`);
    });
    expect(Math.max(...byDelivery('/recover').values(), ...byDelivery('/resume').values())).toBe(1);
    expect(await db.count(`SELECT 1 FROM distributions WHERE id = ANY($1::text[]) AND (recover_requested_at IS NOT NULL OR resume_requested_at IS NOT NULL)`, [[recovered, resumed]])).toBe(0);
  }, 180_000);

  it('a recover with a recent since over 3,000 older FAILED deliveries reads only the recent ones: one batch, then the worker makes exactly those PENDING', async () => {
    const project = await createProject(stack.app, 'Recent recover project');
    const dist = await distribution(project, '/recent', { status: 'PAUSED' });
    await deliveries(project, dist, await events(project, 3_000), 'FAILED');
    await db.query(`UPDATE webhook_deliveries SET created_at = now() - interval '2 days' WHERE distribution_id = $1`, [dist]);
    await deliveries(project, dist, await events(project, 5), 'FAILED');
    const since = new Date(Date.now() - 3_600_000);
    const recent = `SELECT 1 FROM webhook_deliveries WHERE distribution_id = $1 AND created_at >= $2`;

    // The worker's batches, one by one (no worker runs meanwhile): the first ends the recover.
    await stopWorker();
    const work = new WebhookWorkRepository(stack.app.get(DataSource));
    const batches: { changed: number }[] = [];
    for (let last: Parameters<WebhookWorkRepository['recoverBatch']>[2] = null; batches.length < 10; ) {
      const batch = await work.recoverBatch(dist, since, last, WORK_BATCH);
      batches.push(batch);
      if (batch.last === null) break;
      last = batch.last;
    }
    expect(batches).toEqual([{ changed: 5, last: null }]);
    expect(await db.count(`${recent} AND status = 'PENDING' AND manual`, [dist, since])).toBe(5);
    expect(await db.count(`SELECT 1 FROM webhook_deliveries WHERE distribution_id = $1 AND status = 'FAILED'`, [dist])).toBe(3_000);

    // Its plan (with its settings) reads the 5 through the index of FAILED rows by creation time, and no older row.
    await db.query(`UPDATE webhook_deliveries SET status = 'FAILED', manual = false WHERE distribution_id = $1`, [dist]);
    await db.query('BEGIN');
    await db.query(RECOVER_PLAN);
    const [{ 'QUERY PLAN': plan }] = await db.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${RECOVER_BATCH}`, [dist, since, null, null, WORK_BATCH]);
    await db.query('ROLLBACK');
    const scans = planNodes(plan).filter((node) => node['Relation Name'] === 'webhook_deliveries' && String(node['Node Type']).includes('Scan') && node['Index Name'] !== 'PK_535dd409947fb6d8fc6dfc0112a');
    expect(scans.map((node) => [node['Index Name'], node['Actual Rows'], node['Rows Removed by Filter'] ?? 0])).toEqual([['idx_webhook_deliveries_failed_created', 5, 0]]);

    // Through the API and the worker: the same 5, nothing older.
    await stack.startWorker();
    const recover = await stack.http().post(`/v1/distributions/${dist}/recover`).set(project.headers).send({ since: since.toISOString() });
    expect(recover.body).toMatchObject({ deliveries_count: 5 });
    await waitFor(async () => ((await db.count(`SELECT 1 FROM distributions WHERE id = $1 AND recover_requested_at IS NULL`, [dist])) === 1 ? true : undefined), { timeoutMs: 30_000 });
    expect(await db.count(`${recent} AND status = 'PENDING' AND manual`, [dist, since])).toBe(5);
    expect(await db.count(`SELECT 1 FROM webhook_deliveries WHERE distribution_id = $1 AND status = 'FAILED'`, [dist])).toBe(3_000);
  }, 60_000);

  it('DELETE of a distribution with 5,000 deliveries answers at once; it is gone from every answer and from the limit; the worker deletes its deliveries (after a restart too) while another project keeps receiving', async () => {
    const project = await createProject(stack.app, 'Delete project');
    const other = await createProject(stack.app, 'Busy project');
    const big = await distribution(project, '/big', { status: 'PAUSED' });
    // Paused: the 5,000 events below are made for the big one (the relay's small batch bound applies to deliveries).
    await distribution(project, '/small-1', { status: 'PAUSED' });
    await distribution(project, '/small-2', { status: 'PAUSED' });
    expect((await create(project, '/small-3')).status).toBe(409);
    const bigEvents = await events(project, 5_000);
    await deliveries(project, big, bigEvents, 'SUCCEEDED');
    await db.query(`INSERT INTO webhook_attempts (delivery_id, at, status_code, duration_ms) SELECT id, now(), 200, 3 FROM webhook_deliveries WHERE distribution_id = $1`, [big]);
    await distribution(other, '/busy');

    // Deleted while no worker runs: the request only marks it.
    await stopWorker();
    const started = Date.now();
    expect((await stack.http().delete(`/v1/distributions/${big}`).set(project.headers)).status).toBe(204);
    process.stdout.write(`DELETE of a distribution with 5,000 deliveries answered in ${Date.now() - started} ms\n`);
    expect((await stack.http().get(`/v1/distributions/${big}`).set(project.headers)).status).toBe(404);
    expect((await stack.http().get(`/v1/distributions/${big}/deliveries`).set(project.headers)).status).toBe(404);
    expect((await stack.http().post(`/v1/distributions/${big}/recover`).set(project.headers).send({ since: '1970-01-01T00:00:00Z' })).status).toBe(404);
    expect((await stack.http().delete(`/v1/distributions/${big}`).set(project.headers)).status).toBe(404);
    const listed = await stack.http().get('/v1/distributions').query({ limit: 100 }).set(project.headers);
    expect(listed.body.data.map((d: { id: string }) => d.id)).not.toContain(big);
    expect((await create(project, '/small-3')).status).toBe(200);

    // The worker, started again, deletes the deliveries in batches; the other project's events go out meanwhile.
    await stack.startWorker();
    const busyEvents = await events(other, 50);
    await waitFor(async () => (receiver.on('/busy').length >= busyEvents.length ? true : undefined), { timeoutMs: 30_000, intervalMs: 100 });
    await waitFor(async () => ((await db.count(`SELECT 1 FROM distributions WHERE id = $1`, [big])) === 0 ? true : undefined), { timeoutMs: 60_000, intervalMs: 200 });
    expect(await db.count(`SELECT 1 FROM webhook_deliveries WHERE distribution_id = $1`, [big])).toBe(0);
    expect(await db.count(`SELECT 1 FROM webhook_attempts WHERE delivery_id IN (SELECT 'whs_' || left(md5(e), 18) FROM unnest($1::text[]) e)`, [bigEvents])).toBe(0);
  }, 120_000);
});
