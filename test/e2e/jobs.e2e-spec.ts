import { hostname } from 'node:os';
import { DataSource } from 'typeorm';
import { OpaquePingWorkers1795520000000 } from '../../src/database/migrations/1795520000000-OpaquePingWorkers.js';
import { useStack } from '../support/fixture.js';
import { waitFor } from '../support/harness.js';

describe('API → queue → worker round trip', () => {
  const stack = useStack({ worker: true, projects: 1 });

  it('a ping queued by the API is completed by the worker', async () => {
    const created = await stack.http().post('/v1/diagnostics/pings').set(stack.a.headers).send({ note: 'round trip' });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ object: 'diagnostic_ping', status: 'QUEUED', note: 'round trip', processed_at: null });
    expect(created.body.id).toMatch(/^ping_[0-9a-f]{18}$/);

    const done = await waitFor(async () => {
      const res = await stack.http().get(`/v1/diagnostics/pings/${created.body.id}`).set(stack.a.headers);
      return res.body.status === 'DONE' ? res.body : undefined;
    });
    expect(Date.parse(done.processed_at)).toBeGreaterThanOrEqual(Date.parse(done.created_at));
  });

  it('tells the project which worker ran a ping by an opaque id, never by its host name or pid', async () => {
    const ids: string[] = [];
    for (const note of ['first', 'second']) ids.push((await stack.http().post('/v1/diagnostics/pings').set(stack.a.headers).send({ note })).body.id);
    const done = await Promise.all(ids.map((id) => waitFor(async () => {
      const res = await stack.http().get(`/v1/diagnostics/pings/${id}`).set(stack.a.headers);
      return res.body.status === 'DONE' ? res : undefined;
    })));
    for (const res of done) {
      // The worker runs in this test process: its host and pid are this process's.
      expect(res.body.processed_by).toMatch(/^wrk_[0-9a-f]{18}$/);
      // (The pattern leaves no room for them; what it used to show, for the record.)
      expect(res.body.processed_by).not.toBe(`${hostname()}:${process.pid}`);
      // Nor in another field.
      expect(Object.keys(res.body).sort()).toEqual(['created_at', 'id', 'note', 'object', 'processed_at', 'processed_by', 'status', 'work_ms']);
    }
    // One process, one id.
    expect(done[1].body.processed_by).toBe(done[0].body.processed_by);
  });

  it('the migration replaces the host:pid of pings done before it by opaque ids, one per process', async () => {
    const dataSource = stack.app.get(DataSource);
    const opaque = 'wrk_0123456789abcdef01';
    const old = ['build-7:4242', 'build-7:4242', 'build-8:17', opaque];
    const pings: string[] = [];
    for (const [i, processedBy] of old.entries()) {
      const id = `ping_m${i}${Date.now().toString(16)}`.slice(0, 23);
      await dataSource.query(`INSERT INTO diagnostic_pings (id, project_id, status, processed_at, processed_by) VALUES ($1, $2, 'DONE', now(), $3)`, [id, stack.a.project.id, processedBy]);
      pings.push(id);
    }
    const runner = dataSource.createQueryRunner();
    try {
      await new OpaquePingWorkers1795520000000().up(runner);
    } finally {
      await runner.release();
    }
    const after = await Promise.all(pings.map(async (id) => (await stack.http().get(`/v1/diagnostics/pings/${id}`).set(stack.a.headers)).body.processed_by as string));
    expect(after.every((id) => /^wrk_[0-9a-f]{18}$/.test(id))).toBe(true);
    // Pings of one process still share an id; another process has another.
    expect(after[1]).toBe(after[0]);
    expect(after[2]).not.toBe(after[0]);
    // An id that is already opaque is left as it is.
    expect(after[3]).toBe(opaque);
  });

  it('many pings are each completed once', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      const res = await stack.http().post('/v1/diagnostics/pings').set(stack.a.headers).send({ note: `n${i}` });
      ids.push(res.body.id);
    }
    const statuses = await waitFor(async () => {
      const all = await Promise.all(ids.map((id) => stack.http().get(`/v1/diagnostics/pings/${id}`).set(stack.a.headers)));
      return all.every((r) => r.body.status === 'DONE') ? all.map((r) => r.body.note) : undefined;
    });
    expect(statuses).toEqual(ids.map((_, i) => `n${i}`));
  });
});
