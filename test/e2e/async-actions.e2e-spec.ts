import { WorkerLifecycle } from '../../src/app/worker.module.js';
import { useStack } from '../support/fixture.js';
import { REQUEST_ID, type TestProject, createFinishedCampaign, createProject, waitFor } from '../support/harness.js';

const AA_ID = /^aa_[0-9a-f]{18}$/;
let seq = 0;
const uniqueName = (base: string) => `${base} ${Date.now().toString(36)}-${(seq += 1)}`;

describe('async actions: DELETE /v1/loyalties/{campaignId} answers one, GET /v1/async-actions[/{id}] reads it', () => {
  const stack = useStack({ worker: true, pg: true, projects: ['Actions project', 'Other project'], config: { CAMPAIGN_DELETION_SWEEP_MS: '100' } });

  const remove = (idOrName: string, query = '', who: TestProject = stack.a) => stack.http().delete(`/v1/loyalties/${encodeURIComponent(idOrName)}${query}`).set(who.headers);
  const action = (id: string, who: TestProject = stack.a) => stack.http().get(`/v1/async-actions/${encodeURIComponent(id)}`).set(who.headers);
  const list = (query: Record<string, string | number>, who: TestProject = stack.a) => stack.http().get('/v1/async-actions').query(query).set(who.headers);
  const count = async (projectId: string) =>
    Number((await stack.pg.query<{ n: string }>('SELECT count(*) AS n FROM async_actions WHERE project_id = $1', [projectId])).rows[0].n);

  it('a deletion answers 200 {async_action_id}; the action is DONE with the cards it handled, its request and timings', async () => {
    const campaign = await createFinishedCampaign<{ id: string }>(stack.app, stack.a, { name: uniqueName('Bin'), vouchers_count: 3 });
    const before = Date.now();
    const del = await remove(campaign.id);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ async_action_id: expect.stringMatching(AA_ID) });

    const got = await action(del.body.async_action_id);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      id: del.body.async_action_id,
      type: 'CAMPAIGN.VOUCHERS_DELETE',
      status: 'DONE',
      result: { message: 'Moved 3 vouchers to the bin.', done_count: 3 },
      created_at: expect.any(String),
      updated_at: expect.any(String),
      request_id: del.headers['x-request-id'],
      progress: 100,
      processing_time: expect.any(Number),
      object: 'async_action',
    });
    expect(got.body.request_id).toMatch(REQUEST_ID);
    // Voucherify's key order.
    expect(Object.keys(got.body)).toEqual(['id', 'type', 'status', 'result', 'created_at', 'updated_at', 'request_id', 'progress', 'processing_time', 'object']);
    const created = Date.parse(got.body.created_at);
    expect(created).toBeGreaterThanOrEqual(before - 1_000);
    expect(Date.parse(got.body.updated_at) - created).toBe(got.body.processing_time);
    expect(got.body.processing_time).toBeGreaterThanOrEqual(0);
  });

  it('force=true deletes for good, by name: IN_PROGRESS at once, DONE once the worker deleted the cards; one card is "1 voucher"; a campaign without cards is 0', async () => {
    const one = await createFinishedCampaign<{ id: string; name: string }>(stack.app, stack.a, { name: uniqueName('Gone'), vouchers_count: 1 });
    const gone = await remove(one.name, '?force=true');
    expect(gone.status).toBe(200);
    expect(gone.body).toEqual({ async_action_id: expect.stringMatching(AA_ID) });
    const started = (await action(gone.body.async_action_id)).body;
    expect(['IN_PROGRESS', 'DONE']).toContain(started.status);
    if (started.status === 'IN_PROGRESS') expect(started).toMatchObject({ result: null, progress: 0 });
    const done = await waitFor(async () => {
      const got = (await action(gone.body.async_action_id)).body;
      return got.status === 'DONE' ? got : undefined;
    });
    expect(done).toMatchObject({ status: 'DONE', progress: 100, result: { message: 'Deleted 1 voucher.', done_count: 1 }, request_id: gone.headers['x-request-id'] });
    expect(Number((await stack.pg.query('SELECT count(*) AS n FROM vouchers WHERE campaign_id = $1', [one.id])).rows[0].n)).toBe(0);

    const empty = (await stack.http().post('/v1/loyalties').set(stack.a.headers).send({ name: uniqueName('Empty') })).body as { id: string };
    const emptied = await remove(empty.id);
    expect((await action(emptied.body.async_action_id)).body.result).toEqual({ message: 'Moved 0 vouchers to the bin.', done_count: 0 });
  });

  it("an unknown id, and another project's action, are 404 not_found async_action", async () => {
    const campaign = (await stack.http().post('/v1/loyalties').set(stack.a.headers).send({ name: uniqueName('Mine') })).body as { id: string };
    const mine = (await remove(campaign.id)).body.async_action_id as string;
    const theirs = await action(mine, stack.b);
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual({
      code: 404,
      key: 'not_found',
      message: 'Resource not found',
      details: `Cannot find async_action with id ${mine}`,
      request_id: expect.stringMatching(REQUEST_ID),
      resource_id: mine,
      resource_type: 'async_action',
    });
    for (const unknown of ['aa_000000000000000000', 'not-an-id', 'aa_%E2%9C%93']) {
      const res = await stack.http().get(`/v1/async-actions/${unknown}`).set(stack.a.headers);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ key: 'not_found', resource_type: 'async_action' });
    }
    expect((await list({ limit: 100 }, stack.b)).body.async_actions.map((a: { id: string }) => a.id)).not.toContain(mine);
  });

  it('a refused deletion leaves no action: protected (400), unknown and already deleted (404), another project (404)', async () => {
    const fresh = await createProject(stack.app, 'Refusals');
    const protectedOne = (await stack.http().post('/v1/loyalties').set(fresh.headers).send({ name: uniqueName('Locked'), protected: true })).body as { id: string };
    const refused = await remove(protectedOne.id, '', fresh);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ key: 'resource_protected', resource_id: protectedOne.id, resource_type: 'campaign' });
    expect((await remove('camp_unknown', '', fresh)).status).toBe(404);
    expect((await remove(protectedOne.id, '?force=true', stack.b)).status).toBe(404);
    expect(await count(fresh.project.id)).toBe(0);
    expect((await list({}, fresh)).body).toEqual({ object: 'list', data_ref: 'async_actions', async_actions: [], has_more: false });

    const plain = (await stack.http().post('/v1/loyalties').set(fresh.headers).send({ name: uniqueName('Once') })).body as { id: string };
    expect((await remove(plain.id, '', fresh)).status).toBe(200);
    expect((await remove(plain.id, '', fresh)).status).toBe(404);
    expect(await count(fresh.project.id)).toBe(1);
  });

  it('lists the project\'s actions newest first without results, paged by end_date', async () => {
    const fresh = await createProject(stack.app, 'Listing');
    const ids: string[] = [];
    for (const name of ['L1', 'L2', 'L3']) {
      const campaign = (await stack.http().post('/v1/loyalties').set(fresh.headers).send({ name })).body as { id: string };
      ids.push((await remove(campaign.id, '', fresh)).body.async_action_id);
    }
    const first = await list({ limit: 2 }, fresh);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ object: 'list', data_ref: 'async_actions', has_more: true });
    expect(first.body.async_actions.map((a: { id: string }) => a.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.async_actions[0]).toEqual({
      id: ids[2],
      type: 'CAMPAIGN.VOUCHERS_DELETE',
      status: 'DONE',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      request_id: expect.stringMatching(REQUEST_ID),
      progress: 100,
      object: 'async_action',
    });
    const last = first.body.async_actions[1].created_at as string;
    const second = await list({ limit: 2, end_date: last }, fresh);
    expect(second.body).toMatchObject({ has_more: false });
    expect(second.body.async_actions.map((a: { id: string }) => a.id)).toEqual([ids[0]]);
    expect((await list({ end_date: '2000-01-01' }, fresh)).body.async_actions).toEqual([]);

    for (const [query, detail] of [
      [{ limit: 0 }, 'limit must not be less than 1'],
      [{ limit: 101 }, 'limit must not be greater than 100'],
      [{ end_date: 'yesterday' }, 'end_date must be an ISO 8601 date-time with a time zone, or a date'],
      [{ end_date: '2026-02-30' }, 'end_date must be an ISO 8601 date-time with a time zone, or a date'],
      [{ end_date: '2026-01-31T12:00:00' }, 'end_date must be an ISO 8601 date-time with a time zone, or a date'],
    ] as const) {
      const bad = await list(query, fresh);
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ key: 'invalid_query_params', details: detail });
    }
  });

  it("the worker's sweep deletes the actions older than ASYNC_ACTION_TTL_MS (30 days) and keeps the others", async () => {
    const fresh = await createProject(stack.app, 'Sweep');
    const ids: string[] = [];
    for (const name of ['Old', 'New']) {
      const campaign = (await stack.http().post('/v1/loyalties').set(fresh.headers).send({ name })).body as { id: string };
      ids.push((await remove(campaign.id, '', fresh)).body.async_action_id);
    }
    await stack.pg.query(`UPDATE async_actions SET created_at = now() - interval '31 days', updated_at = now() - interval '31 days' WHERE id = $1`, [ids[0]]);
    await stack.worker.get(WorkerLifecycle).sweeps!.runNow('async-actions');
    expect((await action(ids[0], fresh)).status).toBe(404);
    expect((await action(ids[1], fresh)).status).toBe(200);
  });
});
