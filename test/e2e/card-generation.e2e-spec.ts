import type { INestApplicationContext } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import pg from 'pg';
import { type TestProject, createProject, http, startApi, startWorker, testConfig, waitFor } from '../support/harness.js';

interface Campaign {
  id: string;
  vouchers_count: number;
  creation_status: string;
  vouchers_generation_status: string;
}

describe('loyalty card generation (BullMQ job in a real worker)', () => {
  let app: NestExpressApplication;
  let worker: INestApplicationContext;
  let project: TestProject;
  let db: pg.Client;

  beforeAll(async () => {
    app = await startApi();
    worker = await startWorker();
    project = await createProject(app);
    db = new pg.Client({ connectionString: testConfig().databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await worker.close();
    await app.close();
  });

  const create = (body: object) => http(app).post('/v1/loyalties').set(project.headers).send(body);
  const settled = (id: string) =>
    waitFor(
      async () => {
        const res = await http(app).get(`/v1/loyalties/${id}`).set(project.headers);
        return res.body.vouchers_generation_status === 'IN_PROGRESS' ? undefined : (res.body as Campaign);
      },
      { timeoutMs: 30_000 },
    );
  const codes = async (campaignId: string) =>
    (await db.query<{ code: string; id: string; initial_points: number }>('SELECT code, id, initial_points FROM vouchers WHERE campaign_id = $1', [campaignId])).rows;

  it('answers IN_PROGRESS at once, then reaches DONE with the requested number of unique codes', async () => {
    const res = await create({
      name: 'Generated cards',
      vouchers_count: 500,
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 7 }, code_config: { pattern: 'LC-####-##', charset: 'ABCDEFGH23456789', prefix: 'X', postfix: '!' } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ creation_status: 'IN_PROGRESS', vouchers_generation_status: 'IN_PROGRESS', vouchers_count: 0 });

    const done = await settled(res.body.id);
    expect(done).toMatchObject({ creation_status: 'DONE', vouchers_generation_status: 'DONE', vouchers_count: 500 });
    const rows = await codes(res.body.id);
    expect(rows).toHaveLength(500);
    expect(new Set(rows.map((r) => r.code)).size).toBe(500);
    for (const row of rows) {
      expect(row.code).toMatch(/^XLC-[A-H2-9]{4}-[A-H2-9]{2}!$/);
      expect(row.id).toMatch(/^v_[0-9A-Za-z]{32}$/);
      expect(row.initial_points).toBe(7);
    }
  });

  it('a PUT while generation runs still works, and generation still reaches the exact count', async () => {
    const res = await create({ name: 'Big campaign', vouchers_count: 60_000 });
    expect(res.body.vouchers_generation_status).toBe('IN_PROGRESS');
    const updated = await http(app).put(`/v1/loyalties/${res.body.id}`).set(project.headers).send({ description: 'edited during generation', metadata: { a: 1 } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ description: 'edited during generation', metadata: { a: 1 } });

    const done = await settled(res.body.id);
    expect(done).toMatchObject({ vouchers_generation_status: 'DONE', vouchers_count: 60_000 });
    const [{ n, distinct }] = (await db.query('SELECT count(*)::int AS n, count(DISTINCT code)::int AS distinct FROM vouchers WHERE campaign_id = $1', [res.body.id])).rows;
    expect({ n, distinct }).toEqual({ n: 60_000, distinct: 60_000 });
    expect((await http(app).get(`/v1/loyalties/${res.body.id}`).set(project.headers)).body.description).toBe('edited during generation');
  });

  it('codes are unique across the project: a second campaign in a small code space avoids the first one\'s codes', async () => {
    const config = { pattern: 'S-##', charset: '0123456789' };
    const first = await create({ name: 'Small space A', vouchers_count: 50, voucher: { code_config: config } });
    expect(await settled(first.body.id)).toMatchObject({ vouchers_generation_status: 'DONE', vouchers_count: 50 });
    const second = await create({ name: 'Small space B', vouchers_count: 30, voucher: { code_config: config } });
    expect(await settled(second.body.id)).toMatchObject({ vouchers_generation_status: 'DONE', vouchers_count: 30 });
    const a = new Set((await codes(first.body.id)).map((r) => r.code));
    const b = (await codes(second.body.id)).map((r) => r.code);
    expect(b.filter((code) => a.has(code))).toEqual([]);

    // 80 of the 100 possible codes are taken: a third campaign can make only 20 of its 50 and FAILS.
    const third = await create({ name: 'Small space C', vouchers_count: 50, voucher: { code_config: config } });
    const failed = await settled(third.body.id);
    expect(failed).toMatchObject({ creation_status: 'FAILED', vouchers_generation_status: 'FAILED', vouchers_count: 20 });
    const reason = await db.query('SELECT generation_error FROM campaigns WHERE id = $1', [third.body.id]);
    expect(reason.rows[0].generation_error).toMatch(/code space .* is used up/);
  });

  it('deleting a campaign during generation stops it without errors, and force removes its cards', async () => {
    const res = await create({ name: 'Deleted while generating', vouchers_count: 40_000 });
    expect((await http(app).delete(`/v1/loyalties/${res.body.id}?force=true`).set(project.headers)).status).toBe(204);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const left = await db.query('SELECT count(*)::int AS n FROM vouchers WHERE campaign_id = $1', [res.body.id]);
    expect(left.rows[0].n).toBe(0);
  });
});
