import { readFileSync } from 'node:fs';
import { WorkerLifecycle } from '../../src/app/worker.module.js';
import { hexId } from '../../src/common/ids.js';
import { DIAGNOSTIC_PING_MAX_REQUEUES } from '../../src/diagnostics/diagnostic-ping.entity.js';
import { DIAGNOSTIC_PING_SWEEP_BATCH } from '../../src/diagnostics/diagnostic-ping.sweep.js';
import { JobQueueService } from '../../src/queue/job-queue.service.js';
import { JobName, QueueName } from '../../src/queue/queue.definitions.js';
import { useStack } from '../support/fixture.js';
import { waitFor } from '../support/harness.js';

describe("diagnostic pings: the worker's sweep enqueues again a QUEUED ping whose job Redis lost", () => {
  const stack = useStack({ worker: true, pg: true, projects: ['Ping sweep project', 'Stuck pings project'] });

  const row = async (id: string) =>
    (await stack.pg.query<{ status: string; processed_at: Date | null; requeue_count: number }>('SELECT status, processed_at, requeue_count FROM diagnostic_pings WHERE id = $1', [id])).rows[0];
  // A row without a job, as a failover leaves it: the API's insert, never followed by a job Redis kept.
  const orphan = async (age: string) => {
    const id = hexId('ping_');
    await stack.pg.query(`INSERT INTO diagnostic_pings (id, project_id, status, created_at) VALUES ($1, $2, 'QUEUED', now() - $3::interval)`, [id, stack.a.project.id, age]);
    return id;
  };

  it('a QUEUED ping older than the sweep age and without a job reaches DONE, once', async () => {
    const id = await orphan('1 minute');
    const sweeps = stack.worker.get(WorkerLifecycle).sweeps!;
    await sweeps.runNow('diagnostic-pings');
    const done = await waitFor(async () => {
      const ping = await row(id);
      return ping.status === 'DONE' ? ping : undefined;
    });
    // A second run finds nothing QUEUED; the row keeps its first completion.
    await sweeps.runNow('diagnostic-pings');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await row(id)).toEqual(done);
  });

  it('a ping younger than the sweep age is left to the request that enqueues it', async () => {
    const id = await orphan('0 seconds');
    await stack.worker.get(WorkerLifecycle).sweeps!.runNow('diagnostic-pings');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await row(id)).status).toBe('QUEUED');
    await stack.pg.query('DELETE FROM diagnostic_pings WHERE id = $1', [id]);
  });

  it('a ping created through the API is DONE once its job ran, and the sweep does not complete it again', async () => {
    const created = await stack.http().post('/v1/diagnostics/pings').set(stack.a.headers).send({ note: 'normal path' });
    expect(created.status).toBe(200);
    const done = await waitFor(async () => {
      const ping = await row(created.body.id);
      return ping.status === 'DONE' ? ping : undefined;
    });
    await stack.pg.query(`UPDATE diagnostic_pings SET created_at = now() - interval '1 minute' WHERE id = $1`, [created.body.id]);
    await stack.worker.get(WorkerLifecycle).sweeps!.runNow('diagnostic-pings');
    expect(await row(created.body.id)).toEqual(done);
  });

  it('1,000+ pings of one project whose jobs never complete do not stop a newer lost ping of another project from being swept', async () => {
    const jobs = stack.worker.get(JobQueueService);
    // Project b's stuck pings, older than a's lost one: each has a job, delayed for an hour (on its way, never
    // completing while the test runs), which the sweep must neither count nor let fill its batch.
    const stuck = (
      await stack.pg.query<{ id: string }>(
        `INSERT INTO diagnostic_pings (id, project_id, status, created_at)
         SELECT 'ping_' || substr(md5(random()::text || i), 1, 18), $1, 'QUEUED', now() - interval '1 hour' FROM generate_series(1, $2::int) i RETURNING id`,
        [stack.b.project.id, DIAGNOSTIC_PING_SWEEP_BATCH + 200],
      )
    ).rows.map((ping) => ping.id);
    await jobs.enqueueMany(
      JobName.DiagnosticPing,
      stuck.map((pingId) => ({ data: { pingId }, jobId: pingId, delay: 3_600_000 })),
    );
    const lost = await orphan('1 minute');

    await stack.worker.get(WorkerLifecycle).sweeps!.runNow('diagnostic-pings');
    await waitFor(async () => ((await row(lost)).status === 'DONE' ? true : undefined));
    expect((await row(lost)).requeue_count).toBe(1);
    const b = await stack.pg.query<{ status: string; requeued: number; n: number }>(
      'SELECT status, sum(requeue_count)::int AS requeued, count(*)::int AS n FROM diagnostic_pings WHERE project_id = $1 GROUP BY status',
      [stack.b.project.id],
    );
    expect(b.rows).toEqual([{ status: 'QUEUED', requeued: 0, n: stuck.length }]);
    expect(await jobs.queue(QueueName.Diagnostics).getDelayedCount()).toBe(stuck.length);
    await stack.pg.query('DELETE FROM diagnostic_pings WHERE project_id = $1', [stack.b.project.id]);
  });

  it(`a ping enqueued again ${DIAGNOSTIC_PING_MAX_REQUEUES} times whose job is gone again is given up: FAILED, an answer the API documents`, async () => {
    const id = await orphan('1 minute');
    await stack.pg.query(`UPDATE diagnostic_pings SET requeue_count = $2, swept_at = now() - interval '1 minute' WHERE id = $1`, [id, DIAGNOSTIC_PING_MAX_REQUEUES]);
    await stack.worker.get(WorkerLifecycle).sweeps!.runNow('diagnostic-pings');
    expect(await row(id)).toEqual({ status: 'FAILED', processed_at: null, requeue_count: DIAGNOSTIC_PING_MAX_REQUEUES });
    expect(await stack.worker.get(JobQueueService).queue(QueueName.Diagnostics).getJobState(id)).toBe('unknown');

    const got = await stack.http().get(`/v1/diagnostics/pings/${id}`).set(stack.a.headers);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id, status: 'FAILED', processed_at: null, processed_by: null });
    const spec = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8')) as {
      components: { schemas: Record<string, { properties: Record<string, { enum?: string[] }> }> };
    };
    expect(spec.components.schemas.DiagnosticPingDto.properties.status.enum).toContain(got.body.status);
  });
});
