import { cliOk } from '../support/cli.js';
import { useStack } from '../support/fixture.js';
import { REQUEST_ID, type TestProject, createProject } from '../support/harness.js';

describe('programs (GET /v2/loyalties/programs) and the Areas and Stores feature', () => {
  // The CLI switches features from another process: read the key (and its features) on every request.
  const stack = useStack({ config: { APP_KEY_CACHE_MS: '0' }, projects: ['Programs project', 'Other project'] });

  const create = (body: object, who: TestProject = stack.a) => stack.http().post('/v1/loyalties').set(who.headers).send(body);
  const program = (id: string, who: TestProject = stack.a) => stack.http().get(`/v2/loyalties/programs/${id}`).set(who.headers);

  it('every campaign has one program whose status follows the campaign', async () => {
    const campaign = (await create({ name: 'Program A', metadata: { x: 1 } })).body;
    const res = await program(campaign.program_id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: campaign.program_id,
      name: 'Program A',
      status: 'ACTIVE',
      campaign_id: campaign.id,
      start_date: null,
      end_date: null,
      metadata: {},
      created_at: expect.any(String),
      updated_at: null,
      object: 'program',
    });

    const off = await stack.http().put(`/v1/loyalties/${campaign.id}`).set(stack.a.headers).send({ active: false });
    expect(off.body.active).toBe(false);
    expect((await program(campaign.program_id)).body).toMatchObject({ status: 'INACTIVE', updated_at: off.body.updated_at });

    await stack.http().put(`/v1/loyalties/${campaign.id}`).set(stack.a.headers).send({ active: true, start_date: '2999-01-01T00:00:00Z' });
    expect((await program(campaign.program_id)).body).toMatchObject({ status: 'INACTIVE', start_date: '2999-01-01T00:00:00.000Z' });

    await stack.http().put(`/v1/loyalties/${campaign.id}`).set(stack.a.headers).send({ start_date: '2000-01-01T00:00:00Z', expiration_date: '2001-01-01T00:00:00Z' });
    expect((await program(campaign.program_id)).body.status).toBe('INACTIVE');

    await stack.http().put(`/v1/loyalties/${campaign.id}`).set(stack.a.headers).send({ expiration_date: null });
    expect((await program(campaign.program_id)).body.status).toBe('ACTIVE');
  });

  it('404 for an unknown program and for another project\'s program', async () => {
    const missing = await program('lprg_0000000000');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      code: 404,
      key: 'not_found',
      message: 'Resource not found',
      details: 'Cannot find program with id lprg_0000000000',
      request_id: expect.stringMatching(REQUEST_ID),
      resource_id: 'lprg_0000000000',
      resource_type: 'program',
    });
    const mine = (await create({ name: 'Not yours' })).body;
    expect((await program(mine.program_id, stack.b)).status).toBe(404);
  });

  it('lists programs newest first with signed cursors that are refused when tampered, reused elsewhere or given other parameters', async () => {
    const fresh = await createProject(stack.app, 'Cursor project');
    const ids: string[] = [];
    for (const name of ['P1', 'P2', 'P3', 'P4', 'P5']) ids.push((await create({ name }, fresh)).body.program_id);
    const deleted = (await create({ name: 'P6 deleted' }, fresh)).body;
    await stack.http().delete(`/v1/loyalties/${deleted.id}`).set(fresh.headers);

    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 5; page += 1) {
      const res = await stack.http().get('/v2/loyalties/programs').query(cursor ? { limit: 2, cursor } : { limit: 2 }).set(fresh.headers);
      expect(res.status).toBe(200);
      expect(res.body.object).toBe('list');
      seen.push(...res.body.data.map((p: { id: string }) => p.id));
      if (!res.body.cursor) break;
      expect(res.body.cursor.next).toMatch(/^lcrsprg_[a-f0-9]+$/);
      expect(Date.parse(res.body.cursor.expires_at)).toBeGreaterThan(Date.now());
      cursor = res.body.cursor.next;
    }
    expect(seen).toEqual([...ids].reverse());

    const first = await stack.http().get('/v2/loyalties/programs?limit=2').set(fresh.headers);
    const next: string = first.body.cursor.next;
    const tampered = `${next.slice(0, -1)}${next.endsWith('0') ? '1' : '0'}`;
    for (const [query, who] of [
      [{ limit: 2, cursor: tampered }, fresh],
      [{ limit: 3, cursor: next }, fresh],
      [{ limit: 2, cursor: next }, stack.b],
    ] as const) {
      const res = await stack.http().get('/v2/loyalties/programs').query(query).set(who.headers);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 400, key: 'invalid_or_expired_cursor', message: 'Invalid or expired cursor' });
    }
    const malformed = await stack.http().get('/v2/loyalties/programs?cursor=abc').set(fresh.headers);
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ key: 'invalid_query_params', details: expect.stringMatching(/cursor/) });
  });

  it('access_settings works once the project has Areas and Stores on (set with the CLI)', async () => {
    expect(await cliOk(['set-feature', stack.a.project.id, 'areas_and_stores', 'on'])).toContain('areas_and_stores is on');

    const created = await create({ name: 'With stores', access_settings: { assign: { areas_ids: ['ar_1'], area_all_stores_ids: ['ar_2'], area_stores_ids: ['ars_1'] } } });
    expect(created.status).toBe(200);
    const assignments = created.body.access_settings_assignments;
    expect(assignments).toMatchObject({ object: 'list', data_ref: 'data', total: 3 });
    expect(assignments.data.map((a: { area_id: string | null; area_store_id: string | null; all_stores: boolean }) => [a.area_id, a.area_store_id, a.all_stores])).toEqual([
      ['ar_1', null, false],
      ['ar_2', null, true],
      [null, 'ars_1', false],
    ]);
    expect(assignments.data[0]).toMatchObject({ id: expect.stringMatching(/^arsca_/), object: 'area_store_campaign_assignment' });

    const unassigned = await stack.http().put(`/v1/loyalties/${created.body.id}`).set(stack.a.headers).send({ access_settings: { unassign: { areas_ids: ['ar_1'] } } });
    expect(unassigned.body.access_settings_assignments.total).toBe(2);
    // Never sent to unrestricted application keys.
    expect(unassigned.body).not.toHaveProperty('readonly');

    const plain = await stack.http().get('/v1/loyalties?limit=100').set(stack.a.headers);
    expect(plain.body.campaigns[0]).not.toHaveProperty('access_settings_assignments');
    const expanded = await stack.http().get('/v1/loyalties?limit=100&expand=access_settings_assignments').set(stack.a.headers);
    expect(expanded.body.campaigns.find((c: { id: string }) => c.id === created.body.id).access_settings_assignments.total).toBe(2);

    const otherProject = await create({ name: 'No stores here', access_settings: { assign: { areas_ids: ['ar_1'] } } }, stack.b);
    expect(otherProject.status).toBe(400);

    expect(await cliOk(['set-feature', stack.a.project.id, 'areas_and_stores', 'off'])).toContain('areas_and_stores is off');
    expect((await stack.http().get(`/v1/loyalties/${created.body.id}`).set(stack.a.headers)).body).not.toHaveProperty('access_settings_assignments');
  });
});
