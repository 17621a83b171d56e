import { useStack } from '../support/fixture.js';
import { type TestProject, createProject, startWorker, waitFor } from '../support/harness.js';

interface Campaign {
  id: string;
  vouchers_count: number;
  creation_status: string;
  vouchers_generation_status: string;
}

describe('loyalty card generation (BullMQ job in a real worker)', () => {
  const stack = useStack({ worker: true, projects: 1, pg: true, config: { CAMPAIGN_DELETION_SWEEP_MS: '100' } });
  const { pg: db } = stack;

  const create = (body: object) => stack.http().post('/v1/loyalties').set(stack.a.headers).send(body);
  const settled = (id: string) =>
    waitFor(
      async () => {
        const res = await stack.http().get(`/v1/loyalties/${id}`).set(stack.a.headers);
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
    const updated = await stack.http().put(`/v1/loyalties/${res.body.id}`).set(stack.a.headers).send({ description: 'edited during generation', metadata: { a: 1 } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ description: 'edited during generation', metadata: { a: 1 } });

    const done = await settled(res.body.id);
    expect(done).toMatchObject({ vouchers_generation_status: 'DONE', vouchers_count: 60_000 });
    const [{ n, distinct }] = (await db.query('SELECT count(*)::int AS n, count(DISTINCT code)::int AS distinct FROM vouchers WHERE campaign_id = $1', [res.body.id])).rows;
    expect({ n, distinct }).toEqual({ n: 60_000, distinct: 60_000 });
    expect((await stack.http().get(`/v1/loyalties/${res.body.id}`).set(stack.a.headers)).body.description).toBe('edited during generation');
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
    expect((await stack.http().delete(`/v1/loyalties/${res.body.id}?force=true`).set(stack.a.headers)).status).toBe(200);
    // The worker deletes the cards made so far, in batches.
    const left = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM vouchers WHERE campaign_id = $1', [res.body.id])).rows[0].n;
    await waitFor(async () => ((await left()) === 0 && (await db.query('SELECT 1 FROM campaigns WHERE id = $1', [res.body.id])).rowCount === 0 ? true : undefined), { timeoutMs: 30_000 });
  });
});

describe('card generation is shared between projects in turns (issue 26)', () => {
  // Small turns, so a large campaign takes many of them on this machine too.
  const stack = useStack({ config: { CARD_GENERATION_TURN_CARDS: '1000' }, worker: true, pg: true });
  const { config, pg: db } = stack;

  const get = async (project: TestProject, id: string) => (await stack.http().get(`/v1/loyalties/${id}`).set(project.headers)).body as Campaign;
  const counted = async (id: string) =>
    (await db.query<{ n: number; distinct: number }>('SELECT count(*)::int AS n, count(DISTINCT code)::int AS distinct FROM vouchers WHERE campaign_id = $1', [id])).rows[0];
  const settled = (project: TestProject, id: string, timeoutMs = 120_000) =>
    waitFor(
      async () => {
        const campaign = await get(project, id);
        return campaign.vouchers_generation_status === 'IN_PROGRESS' ? undefined : campaign;
      },
      { timeoutMs, intervalMs: 100 },
    );

  it("project B's small campaign is done while project A's large campaigns are still generating, and A's reach their exact count", async () => {
    const a = await createProject(stack.app, 'Project A');
    const b = await createProject(stack.app, 'Project B');
    const big: string[] = [];
    for (const name of ['A huge 1', 'A huge 2']) {
      const res = await stack.http().post('/v1/loyalties').set(a.headers).send({ name, vouchers_count: 50_000 });
      expect(res.status).toBe(200);
      big.push(res.body.id as string);
    }
    // A's generation is under way before B asks.
    await waitFor(async () => ((await get(a, big[0])).vouchers_count > 0 ? true : undefined), { timeoutMs: 60_000 });

    const small = await stack.http().post('/v1/loyalties').set(b.headers).send({ name: 'B small', vouchers_count: 10 });
    expect(small.status).toBe(200);
    const done = await settled(b, small.body.id, 60_000);
    const aWhenBDone = await Promise.all(big.map((id) => get(a, id)));
    expect(done).toMatchObject({ vouchers_generation_status: 'DONE', vouchers_count: 10 });
    expect(await counted(small.body.id)).toEqual({ n: 10, distinct: 10 });
    // Before, the worker made A's 100,000 cards first: B finished only after both of A's campaigns.
    expect(aWhenBDone.map((c) => c.vouchers_generation_status)).toContain('IN_PROGRESS');
    expect(aWhenBDone.reduce((sum, c) => sum + c.vouchers_count, 0)).toBeLessThan(100_000);

    for (const id of big) {
      expect(await settled(a, id)).toMatchObject({ creation_status: 'DONE', vouchers_generation_status: 'DONE', vouchers_count: 50_000 });
      expect(await counted(id)).toEqual({ n: 50_000, distinct: 50_000 });
    }
  });

  it("project B's campaign is not held by project A's many campaigns that each finish in one turn", async () => {
    const a = await createProject(stack.app, 'Project A, many campaigns');
    const b = await createProject(stack.app, 'Project B, after them');
    // Queued with no worker running, A's first: the order of the queue would serve A's 40 campaigns first.
    await stack.stopWorker();
    const many: string[] = [];
    for (let i = 0; i < 40; i += 1) {
      const res = await stack.http().post('/v1/loyalties').set(a.headers).send({ name: `A one-turn ${i}`, vouchers_count: 1_000 });
      expect(res.status).toBe(200);
      many.push(res.body.id as string);
    }
    const small = await stack.http().post('/v1/loyalties').set(b.headers).send({ name: 'B after many', vouchers_count: 10 });
    await stack.startWorker();

    expect(await settled(b, small.body.id, 60_000)).toMatchObject({ vouchers_generation_status: 'DONE', vouchers_count: 10 });
    // B's turn comes after at most one of A's (the first turn may go to either project), by the times the
    // turns were claimed: what is still in progress when the test looks also counts A's turns taken since.
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM campaigns WHERE id = ANY($1) AND generation_turn_at < (SELECT generation_turn_at FROM campaigns WHERE id = $2)`,
      [many, small.body.id],
    );
    expect(rows[0].n).toBeLessThanOrEqual(2);
    for (const id of many) expect(await settled(a, id)).toMatchObject({ vouchers_generation_status: 'DONE', vouchers_count: 1_000 });
  });

  it("a campaign whose turns fail is retried and FAILED on its own, while another project's campaign is made", async () => {
    const c = await createProject(stack.app, 'Broken');
    const d = await createProject(stack.app, 'Healthy');
    await stack.stopWorker();
    const broken = await stack.http().post('/v1/loyalties').set(c.headers).send({ name: 'Breaks', vouchers_count: 100 });
    // A stored value PostgreSQL refuses: every turn of this campaign throws.
    await db.query(`UPDATE campaigns SET voucher = jsonb_set(voucher, '{loyalty_card,points}', '"x"') WHERE id = $1`, [broken.body.id]);
    const healthy = await stack.http().post('/v1/loyalties').set(d.headers).send({ name: 'Works', vouchers_count: 100 });
    await stack.startWorker();

    expect(await settled(d, healthy.body.id, 60_000)).toMatchObject({ vouchers_generation_status: 'DONE', vouchers_count: 100 });
    const failed = await waitFor(
      async () => {
        const { rows } = await db.query('SELECT vouchers_generation_status AS status, vouchers_count, generation_error, generation_failures FROM campaigns WHERE id = $1', [broken.body.id]);
        return rows[0].status === 'IN_PROGRESS' ? undefined : rows[0];
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    expect(failed).toMatchObject({ status: 'FAILED', vouchers_count: 0, generation_failures: 5 });
    expect(failed.generation_error).toMatch(/integer/);
  });

  it('two workers and concurrent PUTs on the campaigns: every card is made once, with exactly one ledger row of its initial points', async () => {
    const project = await createProject(stack.app, 'Two workers');
    const second = await startWorker(config);
    try {
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1) {
        const res = await stack.http().post('/v1/loyalties').set(project.headers).send({ name: `Raced ${i}`, vouchers_count: 4_000, voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 5 } } });
        expect(res.status).toBe(200);
        ids.push(res.body.id as string);
      }
      // The campaign rows the turns and the count updates write, written by the API at the same time.
      const statuses: number[] = [];
      for (let round = 0; round < 5; round += 1) {
        const answers = await Promise.all(ids.flatMap((id) => [0, 1, 2, 3].map((n) => stack.http().put(`/v1/loyalties/${id}`).set(project.headers).send({ metadata: { round, n } }))));
        statuses.push(...answers.map((res) => res.status));
      }
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
      // Each turn takes well under a second; before, a claim that skipped a campaign locked by one of these
      // PUTs could stop every worker with the campaign IN_PROGRESS until the next sweep.
      for (const id of ids) expect(await settled(project, id, 30_000)).toMatchObject({ vouchers_generation_status: 'DONE', vouchers_count: 4_000 });

      const { rows } = await db.query<{ cards: number; codes: number; wrong_balance: number; ledger_rows: number; ledger_sum: number }>(
        `SELECT count(*)::int AS cards, count(DISTINCT v.code)::int AS codes,
                count(*) FILTER (WHERE v.balance <> 5 OR v.points <> 5)::int AS wrong_balance,
                sum(t.n)::int AS ledger_rows, sum(t.total)::int AS ledger_sum
         FROM vouchers v
         CROSS JOIN LATERAL (SELECT count(*) AS n, coalesce(sum(points), 0) AS total FROM voucher_transactions WHERE voucher_id = v.id) t
         WHERE v.campaign_id = ANY($1)`,
        [ids],
      );
      expect(rows[0]).toEqual({ cards: 12_000, codes: 12_000, wrong_balance: 0, ledger_rows: 12_000, ledger_sum: 60_000 });
    } finally {
      await second.close();
    }
  });

  it('a worker closed mid-generation leaves the campaign to the next worker, which makes exactly the cards missing', async () => {
    const project = await createProject(stack.app, 'Restarted');
    const res = await stack.http().post('/v1/loyalties').set(project.headers).send({ name: 'Across a restart', vouchers_count: 100_000 });
    await waitFor(async () => ((await get(project, res.body.id)).vouchers_count > 0 ? true : undefined), { timeoutMs: 60_000 });
    await stack.stopWorker();
    const stopped = await get(project, res.body.id);
    expect(stopped).toMatchObject({ vouchers_generation_status: 'IN_PROGRESS' });
    expect(stopped.vouchers_count).toBeLessThan(100_000);

    // The new worker's sweep (at start) queues the campaign again.
    await stack.startWorker();
    expect(await settled(project, res.body.id)).toMatchObject({ vouchers_generation_status: 'DONE', vouchers_count: 100_000 });
    expect(await counted(res.body.id)).toEqual({ n: 100_000, distinct: 100_000 });
  });
});
