import type { NestExpressApplication } from '@nestjs/platform-express';
import pg from 'pg';
import { CardGenerationService } from '../../src/campaigns/card-generation.service.js';
import { type TestProject, createProject, http, startApi, startWorker, testConfig, waitFor } from '../support/harness.js';
import { TcpProxy } from '../support/tcp-proxy.js';

/**
 * PostgreSQL and Redis are reached through loopback proxies that the test cuts, so the service sees a
 * real outage while the shared servers stay up. Requests must fail fast with 503, then recover.
 */
describe('dependency outages', () => {
  const real = testConfig();
  const pgProxy = new TcpProxy(new URL(real.databaseUrl).hostname, Number(new URL(real.databaseUrl).port || 5432));
  const redisProxy = new TcpProxy(new URL(real.redisUrl).hostname, Number(new URL(real.redisUrl).port || 6379));
  let app: NestExpressApplication;
  let project: TestProject;

  beforeAll(async () => {
    const dbUrl = new URL(real.databaseUrl);
    dbUrl.host = `127.0.0.1:${await pgProxy.start()}`;
    const redisUrl = new URL(real.redisUrl);
    redisUrl.host = `127.0.0.1:${await redisProxy.start()}`;
    app = await startApi(testConfig({ DATABASE_URL: dbUrl.toString(), REDIS_URL: redisUrl.toString() }));
    project = await createProject(app);
  });
  afterAll(async () => {
    await app.close();
    await pgProxy.cut();
    await redisProxy.cut();
  });

  it('answers 503 service_unavailable quickly while PostgreSQL is down, and recovers', async () => {
    await pgProxy.cut();
    const started = Date.now();
    const res = await http(app).get('/v1/diagnostics/pings/ping_x').set(project.headers).timeout(10_000);
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: 503, key: 'service_unavailable', details: 'PostgreSQL is unreachable; retry later' });
    expect(res.body.request_id).toBe(res.headers['x-request-id']);
    expect(res.headers['retry-after']).toBe('5');
    expect(JSON.stringify(res.body)).not.toMatch(/ECONNREFUSED|at .*\.js/);
    const ready = await http(app).get('/health/ready').timeout(10_000);
    expect(ready.status).toBe(503);
    expect(ready.body.details).toContain('postgres');
    // Well inside the 10 s client timeout: the pool's 2 s connect timeout bounds the wait.
    expect(Date.now() - started).toBeLessThan(10_000);

    await pgProxy.restore();
    const back = await http(app).get('/v1/diagnostics/pings/ping_x').set(project.headers);
    expect(back.status).toBe(404);
  });

  it('answers 503 when Redis is down, leaves no half-created ping, and recovers', async () => {
    await redisProxy.cut();
    const res = await http(app).post('/v1/diagnostics/pings').set(project.headers).send({ note: 'during outage' }).timeout(10_000);
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: 503, key: 'service_unavailable', details: 'Redis is unreachable; retry later' });
    // Reported, but PostgreSQL decides readiness: a Redis outage must not take every replica out at once.
    const ready = await http(app).get('/health/ready').timeout(10_000);
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', checks: { postgres: 'up', redis: 'down' } });

    const client = new pg.Client({ connectionString: real.databaseUrl });
    await client.connect();
    const orphans = await client.query("SELECT count(*)::int AS n FROM diagnostic_pings WHERE note = 'during outage'");
    await client.end();
    expect(orphans.rows[0].n).toBe(0);

    await redisProxy.restore();
    const back = await waitForStatus(() => http(app).post('/v1/diagnostics/pings').set(project.headers).send({ note: 'after outage' }), 200);
    expect(back.body.status).toBe('QUEUED');
  });

  it('creates a campaign while Redis is down (cards IN_PROGRESS); the sweep generates its cards once Redis is back', async () => {
    await redisProxy.cut();
    const res = await http(app).post('/v1/loyalties').set(project.headers).send({ name: 'Created during a Redis outage', vouchers_count: 25 }).timeout(10_000);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ creation_status: 'IN_PROGRESS', vouchers_generation_status: 'IN_PROGRESS' });
    await redisProxy.restore();

    const worker = await startWorker();
    try {
      expect(await worker.get(CardGenerationService).sweep()).toBeGreaterThanOrEqual(1);
      const done = await waitFor(async () => {
        const got = await http(app).get(`/v1/loyalties/${res.body.id}`).set(project.headers);
        return got.body.vouchers_generation_status === 'DONE' ? got.body : undefined;
      });
      expect(done.vouchers_count).toBe(25);
    } finally {
      await worker.close();
    }
    // Let the API's own Redis connection come back before the suite closes the app: closing while
    // ioredis is still reconnecting hangs (noted in the issue 3 closing note).
    await waitFor(async () => ((await http(app).get('/health/ready')).body.checks?.redis === 'up' ? true : undefined));
  });
});

async function waitForStatus(send: () => PromiseLike<{ status: number; body: { status?: string } }>, status: number) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const res = await send();
    if (res.status === status || Date.now() > deadline) return res;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
