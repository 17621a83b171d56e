import type { INestApplicationContext } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { type TestProject, createProject, http, startApi, startWorker, waitFor } from '../support/harness.js';

describe('API → queue → worker round trip', () => {
  let app: NestExpressApplication;
  let worker: INestApplicationContext;
  let project: TestProject;

  beforeAll(async () => {
    app = await startApi();
    worker = await startWorker();
    project = await createProject(app);
  });
  afterAll(async () => {
    await worker.close();
    await app.close();
  });

  it('a ping queued by the API is completed by the worker', async () => {
    const created = await http(app).post('/v1/diagnostics/pings').set(project.headers).send({ note: 'round trip' });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ object: 'diagnostic_ping', status: 'QUEUED', note: 'round trip', processed_at: null });
    expect(created.body.id).toMatch(/^ping_[0-9a-f]{18}$/);

    const done = await waitFor(async () => {
      const res = await http(app).get(`/v1/diagnostics/pings/${created.body.id}`).set(project.headers);
      return res.body.status === 'DONE' ? res.body : undefined;
    });
    expect(done.processed_by).toMatch(/:\d+$/);
    expect(Date.parse(done.processed_at)).toBeGreaterThanOrEqual(Date.parse(done.created_at));
  });

  it('many pings are each completed once', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      const res = await http(app).post('/v1/diagnostics/pings').set(project.headers).send({ note: `n${i}` });
      ids.push(res.body.id);
    }
    const statuses = await waitFor(async () => {
      const all = await Promise.all(ids.map((id) => http(app).get(`/v1/diagnostics/pings/${id}`).set(project.headers)));
      return all.every((r) => r.body.status === 'DONE') ? all.map((r) => r.body.note) : undefined;
    });
    expect(statuses).toEqual(ids.map((_, i) => `n${i}`));
  });
});
