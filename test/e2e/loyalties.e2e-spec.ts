import { useStack } from '../support/fixture.js';
import { REQUEST_ID, type TestProject, createProject } from '../support/harness.js';

const ALNUM = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
let seq = 0;
const uniqueName = (base = 'Campaign') => `${base} ${Date.now().toString(36)}-${(seq += 1)}`;

describe('loyalty campaigns: POST/PUT/GET/DELETE /v1/loyalties', () => {
  const stack = useStack({ projects: ['Test project', 'Other project'] });

  const create = (body: object, who: TestProject = stack.a) => stack.http().post('/v1/loyalties').set(who.headers).send(body);
  const put = (id: string, body: object, who: TestProject = stack.a) => stack.http().put(`/v1/loyalties/${encodeURIComponent(id)}`).set(who.headers).send(body);
  const get = (id: string, who: TestProject = stack.a) => stack.http().get(`/v1/loyalties/${encodeURIComponent(id)}`).set(who.headers);

  describe('POST', () => {
    it('200 with the full campaign object and Voucherify defaults', async () => {
      const name = uniqueName();
      const res = await create({ name });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^camp_[0-9A-Za-z]{24}$/),
        name,
        campaign_type: 'LOYALTY_PROGRAM',
        type: 'AUTO_UPDATE',
        voucher: {
          type: 'LOYALTY_CARD',
          loyalty_card: { points: 0 },
          redemption: { quantity: null },
          code_config: { length: 8, charset: ALNUM, pattern: '########' },
          is_referral_code: false,
        },
        auto_join: false,
        join_once: true,
        use_voucher_metadata_schema: false,
        vouchers_count: 0,
        active: true,
        metadata: {},
        created_at: expect.any(String),
        creation_status: 'DONE',
        vouchers_generation_status: 'DONE',
        protected: false,
        category_id: null,
        categories: [],
        object: 'campaign',
        validation_rules_assignments: { object: 'list', data_ref: 'data', data: [], total: 0 },
        program_id: expect.stringMatching(/^lprg_[0-9a-f]+$/),
      });
      expect(Math.abs(Date.parse(res.body.created_at) - Date.now())).toBeLessThan(60_000);
    });

    it('forces join_once to true even when false is sent', async () => {
      const res = await create({ name: uniqueName(), join_once: false });
      expect(res.status).toBe(200);
      expect(res.body.join_once).toBe(true);
    });

    it('a pattern overrides length: length becomes the # count, charset keeps its default', async () => {
      const res = await create({ name: uniqueName(), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 5 }, code_config: { pattern: 'L-CARD-#######', length: 12, prefix: 'P', postfix: 'S' } } });
      expect(res.status).toBe(200);
      expect(res.body.voucher.code_config).toEqual({ length: 7, charset: ALNUM, pattern: 'L-CARD-#######', prefix: 'P', postfix: 'S' });
      expect(res.body.voucher.loyalty_card).toEqual({ points: 5 });
    });

    it('echoes every optional field it was given', async () => {
      const body = {
        name: uniqueName(),
        description: 'Points for purchases',
        type: 'STATIC',
        auto_join: true,
        use_voucher_metadata_schema: true,
        start_date: '2026-01-01T00:00:00Z',
        expiration_date: '2036-01-01T00:00:00.000Z',
        validity_timeframe: { duration: 'PT1H', interval: 'P2D' },
        validity_day_of_week: [1, 2, 3],
        validity_hours: { daily: [{ start_time: '12:00', days_of_week: [1, 5], expiration_time: '14:00' }] },
        activity_duration_after_publishing: 'P24D',
        metadata: { region: 'EU', tier: 2 },
        campaign_type: 'LOYALTY_PROGRAM',
        voucher: {
          type: 'LOYALTY_CARD',
          loyalty_card: { points: 100, expiration_rules: { period_type: 'MONTH', period_value: 12, rounding_type: 'END_OF_QUARTER', rounding_value: 0 } },
          redemption: { quantity: 3 },
          code_config: { length: 10, charset: 'ABCDEF' },
        },
        loyalty_tiers_expiration: { qualification_type: 'BALANCE', start_date: { type: 'IMMEDIATE' }, expiration_date: { type: 'CUSTOM', extend: 'P1M' } },
        active: false,
      };
      const res = await create(body);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        ...body,
        start_date: '2026-01-01T00:00:00.000Z',
        expiration_date: '2036-01-01T00:00:00.000Z',
        join_once: true,
        voucher: { ...body.voucher, code_config: { length: 10, charset: 'ABCDEF', pattern: '##########' }, is_referral_code: false },
      });
      expect(res.body).not.toHaveProperty('readonly');
      expect(res.body).not.toHaveProperty('access_settings_assignments');
    });

    it('category by name is created on first use and reused after; category_id must exist; not both', async () => {
      const category = uniqueName('Category');
      const first = await create({ name: uniqueName(), category });
      expect(first.status).toBe(200);
      expect(first.body.category).toBe(category);
      expect(first.body.category_id).toMatch(/^cat_[0-9a-f]{18}$/);
      expect(first.body.categories).toEqual([{ id: first.body.category_id, name: category, hierarchy: 0, created_at: expect.any(String), object: 'category' }]);

      const second = await create({ name: uniqueName(), category });
      expect(second.body.category_id).toBe(first.body.category_id);

      const byId = await create({ name: uniqueName(), category_id: first.body.category_id });
      expect(byId.status).toBe(200);
      expect(byId.body).toMatchObject({ category_id: first.body.category_id, category, categories: [{ id: first.body.category_id, name: category }] });

      const missing = await create({ name: uniqueName(), category_id: 'cat_000000000000000000' });
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({ key: 'not_found', details: 'Cannot find category with id cat_000000000000000000', resource_type: 'category' });

      const both = await create({ name: uniqueName(), category, category_id: first.body.category_id });
      expect(both.status).toBe(400);
      expect(both.body).toMatchObject({ key: 'invalid_payload', details: expect.stringContaining('category_id') });

      const foreign = await create({ name: uniqueName(), category_id: first.body.category_id }, stack.b);
      expect(foreign.status).toBe(404);
    });

    const invalid: [string, object, RegExp][] = [
      ['missing name', { description: 'no name' }, /name is required/],
      ['name of the wrong type', { name: 5 }, /name must be a string/],
      ['boolean of the wrong type', { auto_join: 'yes' }, /auto_join must be a boolean/],
      ['metadata that is an array', { metadata: [1] }, /metadata must be an object/],
      ['fractional vouchers_count', { vouchers_count: 1.5 }, /vouchers_count must be an integer/],
      ['negative vouchers_count', { vouchers_count: -1 }, /vouchers_count must not be less than 0/],
      ['vouchers_count over the maximum', { vouchers_count: 1_000_001 }, /vouchers_count must not be greater than 1000000/],
      ['type STANDALONE', { type: 'STANDALONE' }, /type must be AUTO_UPDATE or STATIC: STANDALONE .*not for loyalty campaigns/],
      ['unknown type', { type: 'DYNAMIC' }, /type must be AUTO_UPDATE or STATIC/],
      ['campaign_type other than LOYALTY_PROGRAM', { campaign_type: 'DISCOUNT_COUPONS' }, /campaign_type must be one of the following values: LOYALTY_PROGRAM/],
      ['validity_day_of_week item 7', { validity_day_of_week: [1, 7] }, /validity_day_of_week must not be greater than 6/],
      ['validity_day_of_week item -1', { validity_day_of_week: [-1] }, /validity_day_of_week must not be less than 0/],
      ['start_date not ISO 8601', { start_date: '01/02/2026' }, /start_date must be an ISO 8601 date-time/],
      ['expiration_date not a real date', { expiration_date: '2026-13-01T00:00:00Z' }, /expiration_date must be an ISO 8601 date-time/],
      ['expiration_date before start_date', { start_date: '2026-02-01T00:00:00Z', expiration_date: '2026-01-01T00:00:00Z' }, /expiration_date must not be before start_date/],
      ['validity_timeframe without start_date', { validity_timeframe: { duration: 'PT1H', interval: 'P1D' } }, /validity_timeframe requires start_date/],
      ['validity_timeframe with a bad duration', { start_date: '2026-01-01T00:00:00Z', validity_timeframe: { duration: '1 hour', interval: 'P1D' } }, /validity_timeframe.duration must be an ISO 8601 duration/],
      ['validity_hours with a bad time', { validity_hours: { daily: [{ start_time: '25:00', days_of_week: [1], expiration_time: '14:00' }] } }, /validity_hours.daily.0.start_time must be a time HH:mm/],
      ['activity_duration_after_publishing not a duration', { activity_duration_after_publishing: '24 days' }, /activity_duration_after_publishing must be an ISO 8601 duration/],
      ['activity_duration_after_publishing empty duration', { activity_duration_after_publishing: 'P' }, /activity_duration_after_publishing must be an ISO 8601 duration/],
      ['code_config that cannot make vouchers_count codes', { vouchers_count: 3, voucher: { code_config: { pattern: '##', charset: '01' } } }, /code_config can make only 4 distinct codes, but vouchers_count 3 needs at least 6/],
      ['code_config with a one-character charset', { vouchers_count: 1, voucher: { code_config: { length: 20, charset: 'aaaa' } } }, /can make only 1 distinct codes/],
      ['pattern without a placeholder', { voucher: { code_config: { pattern: 'FIXED' } } }, /voucher.code_config.pattern must contain at least one # placeholder/],
      ['code_config length 0', { voucher: { code_config: { length: 0 } } }, /voucher.code_config.length must not be less than 1/],
      ['voucher type other than LOYALTY_CARD', { voucher: { type: 'DISCOUNT_VOUCHER' } }, /voucher.type must be one of the following values: LOYALTY_CARD/],
      ['loyalty_card without points', { voucher: { loyalty_card: {} } }, /voucher.loyalty_card.points must be an integer/],
      ['loyalty_tiers_expiration without qualification_type', { loyalty_tiers_expiration: { start_date: { type: 'IMMEDIATE' }, expiration_date: { type: 'CUSTOM', extend: 'P1M' } } }, /loyalty_tiers_expiration.qualification_type must be one of/],
      ['access_settings while Areas and Stores is off', { access_settings: { assign: { areas_ids: ['ar_1'] } } }, /access_settings needs the Areas and Stores feature/],
      ['an unknown field', { colour: 'red' }, /property colour is not allowed/],
    ];
    it.each(invalid)('400 invalid_payload: %s', async (label, fields, details) => {
      const res = await create(label === 'missing name' ? fields : { name: uniqueName(), ...fields });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 400, key: 'invalid_payload', message: 'Invalid payload', details: expect.stringMatching(details), request_id: expect.stringMatching(REQUEST_ID) });
    });

    it('409 duplicate_found for a name already used in the project, and the name is free in another project', async () => {
      const name = uniqueName('Duplicate');
      expect((await create({ name })).status).toBe(200);
      const again = await create({ name, description: 'second' });
      expect(again.status).toBe(409);
      expect(again.body).toEqual({
        code: 409,
        key: 'duplicate_found',
        message: 'Duplicated resource found',
        details: `Duplicated campaign exists with name ${name}`,
        request_id: expect.stringMatching(REQUEST_ID),
        resource_id: name,
        resource_type: 'campaign',
      });
      expect((await create({ name }, stack.b)).status).toBe(200);
    });
  });

  describe('PUT', () => {
    it('updates by id and by URL-encoded name (with a space); fields not sent stay; unknown fields are ignored', async () => {
      const name = uniqueName('Summer Loyalty');
      const created = (await create({ name, description: 'before', metadata: { a: 1 }, auto_join: true })).body;

      const byId = await put(created.id, { description: 'after id', name: 'renamed?', colour: 'red', voucher: { type: 'X' } });
      expect(byId.status).toBe(200);
      expect(byId.body).toMatchObject({ id: created.id, name, description: 'after id', auto_join: true, metadata: { a: 1 }, voucher: created.voucher });
      expect(Date.parse(byId.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.created_at));

      const byName = await stack.http().put(`/v1/loyalties/${name.replaceAll(' ', '%20')}`).set(stack.a.headers).send({ auto_join: false });
      expect(byName.status).toBe(200);
      expect(byName.body).toMatchObject({ id: created.id, description: 'after id', auto_join: false });
      expect((await get(name)).body).toMatchObject({ id: created.id, auto_join: false });
    });

    it('merges metadata and removes unset_metadata_fields', async () => {
      const created = (await create({ name: uniqueName(), metadata: { keep: 1, change: 'old', drop: true } })).body;
      const res = await put(created.id, { metadata: { change: 'new', add: [1] }, unset_metadata_fields: ['drop', 'absent'] });
      expect(res.status).toBe(200);
      expect(res.body.metadata).toEqual({ keep: 1, change: 'new', add: [1] });
      const unsetOnly = await put(created.id, { unset_metadata_fields: ['keep'] });
      expect(unsetOnly.body.metadata).toEqual({ change: 'new', add: [1] });
    });

    it('keeps join_once true and changes type only between AUTO_UPDATE and STATIC', async () => {
      const created = (await create({ name: uniqueName() })).body;
      const joinOnce = await put(created.id, { join_once: false });
      expect(joinOnce.status).toBe(200);
      expect(joinOnce.body.join_once).toBe(true);

      expect((await put(created.id, { type: 'STATIC' })).body.type).toBe('STATIC');
      expect((await put(created.id, { type: 'AUTO_UPDATE' })).body.type).toBe('AUTO_UPDATE');
      const standalone = await put(created.id, { type: 'STANDALONE' });
      expect(standalone.status).toBe(400);
      expect(standalone.body).toMatchObject({ key: 'invalid_payload', details: expect.stringMatching(/STANDALONE/) });
      expect((await get(created.id)).body.type).toBe('AUTO_UPDATE');
    });

    it('validates and stores loyalty_tiers_expiration', async () => {
      const created = (await create({ name: uniqueName() })).body;
      const bad = await put(created.id, { loyalty_tiers_expiration: { qualification_type: 'POINTS_IN_PERIOD', start_date: { type: 'IMMEDIATE' }, expiration_date: { type: 'END_OF_PERIOD', extend: 'P1M' } } });
      expect(bad.status).toBe(400);
      expect(bad.body.details).toMatch(/loyalty_tiers_expiration.qualification_period/);
      const value = {
        qualification_type: 'POINTS_IN_PERIOD',
        qualification_period: 'QUARTER',
        start_date: { type: 'NEXT_PERIOD' },
        expiration_date: { type: 'END_OF_NEXT_PERIOD', extend: 'P1M', rounding: { type: 'MONTH', strategy: 'END', unit: 'MONTH', value: 0 } },
      };
      const good = await put(created.id, { loyalty_tiers_expiration: value });
      expect(good.status).toBe(200);
      expect(good.body.loyalty_tiers_expiration).toEqual(value);
      expect((await get(created.id)).body.loyalty_tiers_expiration).toEqual(value);
    });

    it('checks dates against the stored values, and null clears a field', async () => {
      const created = (await create({ name: uniqueName(), start_date: '2026-06-01T00:00:00Z', description: 'x' })).body;
      const before = await put(created.id, { expiration_date: '2026-05-01T00:00:00Z' });
      expect(before.status).toBe(400);
      expect(before.body.details).toBe('expiration_date must not be before start_date');
      expect((await put(created.id, { validity_timeframe: { duration: 'PT2H', interval: 'P1W' } })).status).toBe(200);
      const clearStart = await put(created.id, { start_date: null });
      expect(clearStart.status).toBe(400);
      expect(clearStart.body.details).toBe('validity_timeframe requires start_date');
      const cleared = await put(created.id, { start_date: null, validity_timeframe: null, description: null });
      expect(cleared.status).toBe(200);
      expect(cleared.body).not.toHaveProperty('start_date');
      expect(cleared.body).not.toHaveProperty('validity_timeframe');
      expect(cleared.body).not.toHaveProperty('description');
      const wrongType = await put(created.id, { start_date: 'tomorrow' });
      expect(wrongType.status).toBe(400);
      expect(wrongType.body.details).toMatch(/start_date must be an ISO 8601 date-time/);
    });

    it('sets and clears the category', async () => {
      const created = (await create({ name: uniqueName() })).body;
      const category = uniqueName('Tier');
      const set = await put(created.id, { category });
      expect(set.body).toMatchObject({ category, category_id: expect.stringMatching(/^cat_/) });
      const cleared = await put(created.id, { category_id: null });
      expect(cleared.body).toMatchObject({ category_id: null, categories: [] });
    });

    it('404 not_found naming the campaign as given, by id and by name', async () => {
      for (const id of ['camp_000000000000000000000000', 'No such campaign']) {
        const res = await put(id, { description: 'x' });
        expect(res.status).toBe(404);
        expect(res.body).toEqual({
          code: 404,
          key: 'not_found',
          message: 'Resource not found',
          details: `Cannot find campaign with id ${id}`,
          request_id: expect.stringMatching(REQUEST_ID),
          resource_id: id,
          resource_type: 'campaign',
        });
      }
    });
  });

  describe('GET, list and DELETE', () => {
    it('lists newest first with page, limit and total', async () => {
      const fresh = await createProject(stack.app, 'List project');
      const names = [uniqueName('L'), uniqueName('L'), uniqueName('L')];
      for (const name of names) expect((await create({ name }, fresh)).status).toBe(200);
      const first = await stack.http().get('/v1/loyalties?limit=2').set(fresh.headers);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ object: 'list', data_ref: 'campaigns', total: 3 });
      expect(first.body.campaigns.map((c: { name: string }) => c.name)).toEqual([names[2], names[1]]);
      const second = await stack.http().get('/v1/loyalties?limit=2&page=2').set(fresh.headers);
      expect(second.body.campaigns.map((c: { name: string }) => c.name)).toEqual([names[0]]);
      const oldest = await stack.http().get('/v1/loyalties?order=created_at&limit=1').set(fresh.headers);
      expect(oldest.body.campaigns[0].name).toBe(names[0]);
      const bad = await stack.http().get('/v1/loyalties?limit=101').set(fresh.headers);
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ key: 'invalid_query_params', details: expect.stringMatching(/limit/) });
    });

    it('DELETE moves to the bin: 404 afterwards, the name is reusable and the program shows DELETED', async () => {
      const name = uniqueName('Bin');
      const created = (await create({ name })).body;
      const del = await stack.http().delete(`/v1/loyalties/${created.id}`).set(stack.a.headers);
      expect(del.status).toBe(200);
      expect(del.body).toEqual({ async_action_id: expect.stringMatching(/^aa_[0-9a-f]{18}$/) });
      expect((await get(created.id)).status).toBe(404);
      expect((await stack.http().delete(`/v1/loyalties/${created.id}`).set(stack.a.headers)).status).toBe(404);
      const program = await stack.http().get(`/v2/loyalties/programs/${created.program_id}`).set(stack.a.headers);
      expect(program.body.status).toBe('DELETED');
      const reused = await create({ name });
      expect(reused.status).toBe(200);
      expect(reused.body.id).not.toBe(created.id);
    });

    it('DELETE ?force=true hides the campaign at once (the worker deletes it: campaign-deletion.e2e-spec.ts); the name is reusable', async () => {
      const name = uniqueName('Gone');
      const created = (await create({ name })).body;
      expect((await stack.http().delete(`/v1/loyalties/${encodeURIComponent(name)}?force=true`).set(stack.a.headers)).status).toBe(200);
      expect((await get(created.id)).status).toBe(404);
      // Until the worker deleted it, its program answers as one in the bin does.
      expect((await stack.http().get(`/v2/loyalties/programs/${created.program_id}`).set(stack.a.headers)).body.status).toBe('DELETED');
      expect((await create({ name })).status).toBe(200);
      const badForce = await stack.http().delete(`/v1/loyalties/${encodeURIComponent(name)}?force=maybe`).set(stack.a.headers);
      expect(badForce.status).toBe(400);
      expect(badForce.body.key).toBe('invalid_query_params');
    });

    it('a protected campaign cannot be deleted or modified until it is unprotected', async () => {
      const created = (await create({ name: uniqueName(), protected: true })).body;
      expect(created.protected).toBe(true);
      const del = await stack.http().delete(`/v1/loyalties/${created.id}`).set(stack.a.headers);
      expect(del.status).toBe(400);
      expect(del.body).toMatchObject({
        key: 'resource_protected',
        message: 'Resource is protected',
        details: `Resource campaign with id ${created.id} is protected and cannot be deleted`,
        resource_id: created.id,
        resource_type: 'campaign',
      });
      const modify = await put(created.id, { description: 'x' });
      expect(modify.status).toBe(400);
      expect(modify.body.key).toBe('resource_protected');
      const unprotect = await put(created.id, { protected: false, description: 'now editable' });
      expect(unprotect.body).toMatchObject({ protected: false, description: 'now editable' });
      expect((await stack.http().delete(`/v1/loyalties/${created.id}`).set(stack.a.headers)).status).toBe(200);
    });

    it("another project's campaign is 404 and never listed", async () => {
      const name = uniqueName('Private');
      const mine = (await create({ name })).body;
      expect((await get(mine.id, stack.b)).status).toBe(404);
      expect((await get(name, stack.b)).status).toBe(404);
      expect((await put(mine.id, { description: 'hijack' }, stack.b)).status).toBe(404);
      expect((await stack.http().delete(`/v1/loyalties/${mine.id}`).set(stack.b.headers)).status).toBe(404);
      expect((await stack.http().get(`/v2/loyalties/programs/${mine.program_id}`).set(stack.b.headers)).status).toBe(404);
      const list = await stack.http().get('/v1/loyalties?limit=100').set(stack.b.headers);
      expect(list.body.campaigns.map((c: { id: string }) => c.id)).not.toContain(mine.id);
      expect((await get(mine.id)).body.description).toBeUndefined();
    });
  });
});
