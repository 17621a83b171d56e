import { WorkerLifecycle } from '../../src/app/worker.module.js';
import { hexId } from '../../src/common/ids.js';
import { useStack } from '../support/fixture.js';
import { waitFor } from '../support/harness.js';

describe("diagnostic pings: the worker's sweep enqueues again a QUEUED ping whose job Redis lost", () => {
  const stack = useStack({ worker: true, pg: true, projects: ['Ping sweep project'] });

  const row = async (id: string) =>
    (await stack.pg.query<{ status: string; processed_at: Date | null }>('SELECT status, processed_at FROM diagnostic_pings WHERE id = $1', [id])).rows[0];
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
});
