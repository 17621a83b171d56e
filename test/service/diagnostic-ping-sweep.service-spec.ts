import { UnrecoverableError, Worker } from 'bullmq';
import { DIAGNOSTIC_PING_MAX_REQUEUES } from '../../src/diagnostics/diagnostic-ping.entity.js';
import { DIAGNOSTIC_PING_SWEEP_BATCH, DiagnosticPingSweep } from '../../src/diagnostics/diagnostic-ping.sweep.js';
import { DiagnosticsModule } from '../../src/diagnostics/diagnostics.module.js';
import { DiagnosticsService } from '../../src/diagnostics/diagnostics.service.js';
import { JobQueueService } from '../../src/queue/job-queue.service.js';
import { JobName, QueueName } from '../../src/queue/queue.definitions.js';
import { redisOptions } from '../../src/queue/redis-options.js';
import { waitFor } from '../support/harness.js';
import { useServices } from '../support/services.js';

/**
 * The selection and bookkeeping of the `diagnostic-pings` sweep (DiagnosticsService.requeueStale) on the run's
 * PostgreSQL and Redis. Nothing here processes the queue (the service tier), so a job the sweep adds stays
 * waiting unless a test fails it on purpose.
 */
describe('the diagnostic ping sweep: which pings a run takes, what it counts, when it gives up', () => {
  const services = useServices({ imports: [DiagnosticsModule], providers: [DiagnosticPingSweep] });
  const { db } = services;
  const sweep = () => services.get(DiagnosticPingSweep).run();
  const queue = () => services.get(JobQueueService).queue(QueueName.Diagnostics);
  const state = (id: string) => queue().getJobState(id);

  let projectA: string;
  let projectB: string;
  beforeAll(async () => {
    projectA = (await services.project('Sweep project A')).id;
    projectB = (await services.project('Sweep project B')).id;
  });

  afterEach(async () => {
    await db.query('DELETE FROM diagnostic_pings');
    await queue().obliterate({ force: true });
  });

  // QUEUED rows without a job, as a failover leaves them, created `age` ago.
  const orphans = async (projectId: string, count: number, age: string): Promise<string[]> =>
    (
      await db.query<{ id: string }>(
        `INSERT INTO diagnostic_pings (id, project_id, status, created_at)
         SELECT 'ping_' || substr(md5(random()::text || i), 1, 18), $1, 'QUEUED', now() - $3::interval - i * interval '1 millisecond'
         FROM generate_series(1, $2::int) i RETURNING id`,
        [projectId, count, age],
      )
    ).map((row) => row.id);
  const row = async (id: string) =>
    (await db.query<{ status: string; requeue_count: number; swept_at: Date | null }>('SELECT status, requeue_count, swept_at FROM diagnostic_pings WHERE id = $1', [id]))[0];
  // As if the sweep's last look at these pings were a minute ago: due again.
  const ageSweep = (ids: string[]) => db.query(`UPDATE diagnostic_pings SET swept_at = now() - interval '1 minute' WHERE id = ANY ($1::text[])`, [ids]);

  it('a lost job is enqueued again and counted; a job still waiting is left alone and not counted; both go to the back', async () => {
    const [lost, waiting] = await orphans(projectA, 2, '1 minute');
    await services.get(JobQueueService).enqueue(JobName.DiagnosticPing, { pingId: waiting }, { jobId: waiting });

    expect(await sweep()).toBe(1);
    expect(await state(lost)).toBe('waiting');
    expect(await row(lost)).toMatchObject({ status: 'QUEUED', requeue_count: 1, swept_at: expect.any(Date) });
    expect(await row(waiting)).toMatchObject({ status: 'QUEUED', requeue_count: 0, swept_at: expect.any(Date) });

    // Taken up less than the sweep's age ago: the next run reads neither, and reports nothing.
    const before = await row(waiting);
    expect(await sweep()).toBe(0);
    expect(await row(waiting)).toEqual(before);
  });

  it(`a ping whose jobs keep failing is enqueued again ${DIAGNOSTIC_PING_MAX_REQUEUES} times, then given up (FAILED, as the API shows it)`, async () => {
    const [stuck] = await orphans(projectA, 1, '1 minute');
    // A worker whose every job fails at once, for good (no retries): the failed set, as a ping whose job spent its attempts.
    const failing = new Worker(
      QueueName.Diagnostics,
      async () => {
        throw new UnrecoverableError('stuck on purpose');
      },
      { connection: redisOptions(services.config.redisUrl, false), prefix: services.config.queuePrefix },
    );
    try {
      for (let n = 1; n <= DIAGNOSTIC_PING_MAX_REQUEUES; n += 1) {
        expect(await sweep()).toBe(1);
        expect((await row(stuck)).requeue_count).toBe(n);
        await waitFor(async () => ((await state(stuck)) === 'failed' ? true : undefined));
        await ageSweep([stuck]);
      }
      expect(await sweep()).toBe(0);
    } finally {
      await failing.close();
    }
    expect(await row(stuck)).toMatchObject({ status: 'FAILED', requeue_count: DIAGNOSTIC_PING_MAX_REQUEUES });
    const project = { id: projectA, features: { areasAndStores: false } };
    expect(await services.get(DiagnosticsService).getPing(project, stuck)).toMatchObject({ id: stuck, status: 'FAILED', processed_at: null, processed_by: null });
    // Given up for good: later runs do not take it up again.
    await ageSweep([stuck]);
    expect(await sweep()).toBe(0);
    expect((await row(stuck)).status).toBe('FAILED');
  });

  const sweptPerProject = async () =>
    Object.fromEntries(
      (await db.query<{ project_id: string; n: number }>('SELECT project_id, count(*)::int AS n FROM diagnostic_pings WHERE swept_at IS NOT NULL GROUP BY project_id')).map((r) => [r.project_id, r.n]),
    );

  it("a project's many stuck pings do not take another's place in a batch: the newer ping is in the first run, then the rest", async () => {
    const many = await orphans(projectA, DIAGNOSTIC_PING_SWEEP_BATCH + 200, '1 hour');
    const [newer] = await orphans(projectB, 1, '1 minute');

    // B's one ping in its share; the room it leaves goes to A, whose longest-waiting pings fill the batch.
    expect(await sweep()).toBe(DIAGNOSTIC_PING_SWEEP_BATCH);
    expect(await state(newer)).toBe('waiting');
    expect((await row(newer)).requeue_count).toBe(1);
    const swept = await db.query<{ id: string }>('SELECT id FROM diagnostic_pings WHERE project_id = $1 AND swept_at IS NOT NULL ORDER BY created_at', [projectA]);
    expect(swept.map((ping) => ping.id)).toEqual(many.slice(-(DIAGNOSTIC_PING_SWEEP_BATCH - 1)).reverse());

    // The next run takes the pings the first left, not the same ones again; then nothing is due.
    expect(await sweep()).toBe(many.length - (DIAGNOSTIC_PING_SWEEP_BATCH - 1));
    expect(await db.count('SELECT 1 FROM diagnostic_pings WHERE swept_at IS NULL')).toBe(0);
    expect(await db.count('SELECT 1 FROM diagnostic_pings WHERE requeue_count <> 1')).toBe(0);
    expect(await sweep()).toBe(0);
  });

  it('a batch is shared: an equal share per project, then the room left split between the projects that filled theirs', async () => {
    const projectC = (await services.project('Sweep project C')).id;
    await orphans(projectA, 1_200, '1 hour');
    await orphans(projectB, 300, '2 hours');
    await orphans(projectC, 1, '1 minute');

    expect(await sweep()).toBe(DIAGNOSTIC_PING_SWEEP_BATCH);
    // B and C take less than a share (334); A takes its share and all the room they left.
    expect(await sweptPerProject()).toEqual({ [projectA]: DIAGNOSTIC_PING_SWEEP_BATCH - 301, [projectB]: 300, [projectC]: 1 });
  });

  it('two projects with more than a share each get half of a batch each, however much older the pings of one are', async () => {
    await orphans(projectA, 1_200, '1 day');
    await orphans(projectB, 1_200, '1 minute');
    expect(await sweep()).toBe(DIAGNOSTIC_PING_SWEEP_BATCH);
    expect(await sweptPerProject()).toEqual({ [projectA]: DIAGNOSTIC_PING_SWEEP_BATCH / 2, [projectB]: DIAGNOSTIC_PING_SWEEP_BATCH / 2 });
  });

  it('a ping younger than the sweep age is left to its request', async () => {
    const [young] = await orphans(projectB, 1, '0 seconds');
    expect(await sweep()).toBe(0);
    expect(await row(young)).toMatchObject({ status: 'QUEUED', requeue_count: 0, swept_at: null });
    expect(await state(young)).toBe('unknown');
  });
});
