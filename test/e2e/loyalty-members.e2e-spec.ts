import { useStack } from '../support/fixture.js';
import { REQUEST_ID, type TestProject, createFinishedCampaign } from '../support/harness.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
let seq = 0;
const unique = (base: string) => `${base} ${Date.now().toString(36)}-${(seq += 1)}`;

interface Campaign {
  id: string;
  name: string;
  program_id: string;
  vouchers_count: number;
  vouchers_generation_status: string;
}

interface Card {
  id: string;
  code: string;
  holder_id: string;
  active: boolean;
  created_at: string;
}

/** The v1 member routes the official SDK calls: a member is the customer's loyalty card (a voucher object). */
describe('v1 loyalty members (/v1/loyalties/{campaignId}/members, /v1/loyalties/members/{code})', () => {
  const stack = useStack({ worker: true, projects: ['V1 members project', 'Other v1 members project'], pg: true });
  const { pg: db } = stack;

  const campaign = (body: object = {}, who: TestProject = stack.a) => createFinishedCampaign<Campaign>(stack.app, who, { name: unique('V1 campaign'), ...body });
  const add = (campaignId: string, body: unknown, who: TestProject = stack.a) =>
    stack.http().post(`/v1/loyalties/${encodeURIComponent(campaignId)}/members`).set(who.headers).send(body as object);
  const list = (campaignId: string, query: Record<string, unknown> = {}, who: TestProject = stack.a) =>
    stack.http().get(`/v1/loyalties/${encodeURIComponent(campaignId)}/members`).query(query).set(who.headers);
  const inCampaign = (campaignId: string, code: string, who: TestProject = stack.a) =>
    stack.http().get(`/v1/loyalties/${encodeURIComponent(campaignId)}/members/${encodeURIComponent(code)}`).set(who.headers);
  const anywhere = (code: string, who: TestProject = stack.a) => stack.http().get(`/v1/loyalties/members/${encodeURIComponent(code)}`).set(who.headers);
  const v2Members = async (programId: string) =>
    (await stack.http().get(`/v2/loyalties/programs/${programId}/members`).query({ limit: 100 }).set(stack.a.headers)).body.data as { id: string; customer_id: string; status: string; metadata: object }[];
  const freeCodes = async (campaignId: string) =>
    (await db.query<{ code: string; id: string }>('SELECT code, id FROM vouchers WHERE campaign_id = $1 AND member_id IS NULL ORDER BY code', [campaignId])).rows;
  const notFound = (type: string, id: string) => ({
    code: 404,
    key: 'not_found',
    message: 'Resource not found',
    details: `Cannot find ${type} with id ${id}`,
    request_id: expect.stringMatching(REQUEST_ID),
    resource_id: id,
    resource_type: type,
  });

  describe('POST /v1/loyalties/{campaignId}/members', () => {
    it('customer {source_id}: answers the published card as a voucher object, and the program gets a member', async () => {
      const camp = await campaign({ voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 10 }, code_config: { pattern: 'V1-#####', charset: 'ABCDEFGH' } } });
      const sourceId = unique('v1-source');
      const res = await add(camp.id, { customer: { source_id: sourceId }, metadata: { channel: 'test' } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^v_[0-9A-Za-z]+$/),
        code: expect.stringMatching(/^V1-[A-H]{5}$/),
        campaign: camp.name,
        campaign_id: camp.id,
        categories: [],
        type: 'LOYALTY_CARD',
        discount: null,
        gift: null,
        loyalty_card: { points: 10, balance: 10, pending_points: 0, expired_points: 0, subtracted_points: 0, next_expiration_points: 0 },
        active: true,
        metadata: {},
        is_referral_code: false,
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
        holder_id: expect.stringMatching(/^cust_[0-9A-Za-z]+$/),
        redemption: { redeemed_quantity: 0, redeemed_points: 0, object: 'list' },
        publish: { object: 'list', count: 1 },
        object: 'voucher',
      });
      const customer = await stack.http().get(`/v1/customers/${encodeURIComponent(sourceId)}`).set(stack.a.headers);
      expect(customer.body).toMatchObject({ id: res.body.holder_id, source_id: sourceId });

      // The v2 side: one member of the campaign's program, holding this card, with the request's metadata.
      const [member, ...rest] = await v2Members(camp.program_id);
      expect(rest).toEqual([]);
      expect(member).toMatchObject({ customer_id: res.body.holder_id, status: 'ACTIVE', metadata: { channel: 'test' } });
      const full = await stack.http().get(`/v2/loyalties/programs/${camp.program_id}/members/${member.id}`).set(stack.a.headers);
      // The same card under Voucherify's v2 prefix: lcrd_ + the part after v_, written as hex.
      expect(full.body.cards.map((c: { card: { id: string; code: string } }) => [c.card.id, c.card.code])).toEqual([[`lcrd_${Buffer.from(res.body.id.slice(2)).toString('hex')}`, res.body.code]]);
    });

    it('category and validity settings of the campaign show on the card', async () => {
      const category = unique('Cards category');
      const camp = await campaign({
        category,
        start_date: '2020-01-01T00:00:00Z',
        expiration_date: '2999-01-01T00:00:00Z',
        validity_day_of_week: [1, 2],
      });
      const res = await add(camp.id, { customer: { source_id: unique('cat') } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        category,
        category_id: expect.stringMatching(/^cat_/),
        categories: [{ id: res.body.category_id, name: category, object: 'category' }],
        start_date: '2020-01-01T00:00:00.000Z',
        expiration_date: '2999-01-01T00:00:00.000Z',
        validity_day_of_week: [1, 2],
      });
    });

    it('the campaign by URL-encoded name (with spaces)', async () => {
      const camp = await campaign();
      expect(camp.name).toContain(' ');
      const res = await stack.http().post(`/v1/loyalties/${camp.name.replaceAll(' ', '%20')}/members`).set(stack.a.headers).send({ customer: { source_id: unique('by-name') } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ campaign_id: camp.id, campaign: camp.name });
    });

    it('customer as a plain string: a new source id makes a customer; an existing cust_ id or source id is that customer', async () => {
      const camp = await campaign();
      const sourceId = unique('plain-source');
      const bySource = await add(camp.id, { customer: sourceId });
      expect(bySource.status).toBe(200);
      const made = await stack.http().get(`/v1/customers/${encodeURIComponent(sourceId)}`).set(stack.a.headers);
      expect(made.body).toMatchObject({ id: bySource.body.holder_id, source_id: sourceId });

      const existing = (await stack.http().post('/v1/customers').set(stack.a.headers).send({ source_id: unique('plain-existing'), name: 'Plain' })).body;
      const byId = await add(camp.id, { customer: existing.id });
      expect(byId.status).toBe(200);
      expect(byId.body.holder_id).toBe(existing.id);
      // No second customer was made with the id as its source id.
      const dupes = await db.query('SELECT id FROM customers WHERE project_id = $1 AND source_id = $2', [stack.a.project.id, existing.id]);
      expect(dupes.rows).toEqual([]);

      const another = (await stack.http().post('/v1/customers').set(stack.a.headers).send({ source_id: unique('plain-existing-source') })).body;
      const byExistingSource = await add(camp.id, { customer: another.source_id });
      expect(byExistingSource.body.holder_id).toBe(another.id);
    });

    it('customer {id} of an existing customer; the customer object updates the customer', async () => {
      const camp = await campaign();
      const existing = (await stack.http().post('/v1/customers').set(stack.a.headers).send({ source_id: unique('by-id'), name: 'Before' })).body;
      const res = await add(camp.id, { customer: { id: existing.id, name: 'After', email: 'after@example.com' } });
      expect(res.status).toBe(200);
      expect(res.body.holder_id).toBe(existing.id);
      const customer = (await stack.http().get(`/v1/customers/${existing.id}`).set(stack.a.headers)).body;
      expect(customer).toMatchObject({ name: 'After', email: 'after@example.com', source_id: existing.source_id });
    });

    it('404 customer for {id} unknown or of another project, and no card is published', async () => {
      const camp = await campaign({ vouchers_count: 2 });
      const unknown = await add(camp.id, { customer: { id: 'cust_unknownCustomer1' } });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual(notFound('customer', 'cust_unknownCustomer1'));
      const foreign = (await stack.http().post('/v1/customers').set(stack.b.headers).send({ source_id: unique('foreign') })).body;
      const res = await add(camp.id, { customer: { id: foreign.id } });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ resource_type: 'customer', resource_id: foreign.id });
      expect(await freeCodes(camp.id)).toHaveLength(2);
      expect(await v2Members(camp.program_id)).toEqual([]);
    });

    const invalid: [string, unknown, RegExp][] = [
      ['no customer', { metadata: {} }, /customer/],
      ['an empty customer object', { customer: {} }, /customer must have id or source_id/],
      ['an empty customer string', { customer: '' }, /customer must not be empty/],
      ['a customer that is a number', { customer: 5 }, /customer/],
      ['a customer with a bad email', { customer: { source_id: 'x', email: 'not-an-email' } }, /customer\.email must be an email address/],
      ['a customer with an unknown field', { customer: { source_id: 'x', colour: 'red' } }, /property customer\.colour is not allowed/],
      ['an unknown top-level field', { customer: 'x', colour: 'red' }, /property colour is not allowed/],
      ['voucher that is not a string', { customer: 'x', voucher: 5 }, /voucher must be a string/],
      ['metadata that is an array', { customer: 'x', metadata: [1] }, /metadata must be an object/],
    ];
    it.each(invalid)('400 invalid_payload: %s', async (_label, body, details) => {
      const camp = await campaign();
      const res = await add(camp.id, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 400, key: 'invalid_payload', message: 'Invalid payload', details: expect.stringMatching(details), request_id: expect.stringMatching(REQUEST_ID) });
      expect(await v2Members(camp.program_id)).toEqual([]);
    });

    it('voucher: a free code gives that card; an already published code is 400 voucher_already_published; an unknown code is 404 voucher', async () => {
      const camp = await campaign({ vouchers_count: 3 });
      const free = await freeCodes(camp.id);
      expect(free).toHaveLength(3);
      const chosen = free[1];
      const res = await add(camp.id, { customer: { source_id: unique('chosen') }, voucher: chosen.code });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: chosen.id, code: chosen.code, publish: { count: 1 } });
      expect((await freeCodes(camp.id)).map((c) => c.code)).toEqual([free[0].code, free[2].code]);

      const taken = await add(camp.id, { customer: { source_id: unique('late') }, voucher: chosen.code });
      expect(taken.status).toBe(400);
      expect(taken.body).toEqual({
        code: 400,
        key: 'voucher_already_published',
        message: 'Voucher already published',
        details: `Voucher '${chosen.id}' has already been published`,
        request_id: expect.stringMatching(REQUEST_ID),
        resource_id: chosen.id,
        resource_type: 'voucher',
      });

      const unknown = await add(camp.id, { customer: { source_id: unique('unknown-code') }, voucher: 'NO-SUCH-CODE' });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual(notFound('voucher', 'NO-SUCH-CODE'));

      // A free code of another campaign is not this campaign's card.
      const second = await campaign({ vouchers_count: 1 });
      const [foreignCode] = await freeCodes(second.id);
      const elsewhere = await add(camp.id, { customer: { source_id: unique('elsewhere') }, voucher: foreignCode.code });
      expect(elsewhere.status).toBe(404);
      expect(elsewhere.body).toMatchObject({ key: 'not_found', resource_type: 'voucher', resource_id: foreignCode.code });
      expect(await freeCodes(second.id)).toHaveLength(1);

      // Refused enrolments leave no member behind: only the first customer is a member.
      expect((await v2Members(camp.program_id)).map((m) => m.customer_id)).toEqual([res.body.holder_id]);
    });

    it('409 member_already_exists for a customer who already has a card of the campaign', async () => {
      const camp = await campaign();
      const sourceId = unique('v1-twice');
      const first = await add(camp.id, { customer: { source_id: sourceId } });
      expect(first.status).toBe(200);
      const again = await add(camp.id, { customer: sourceId });
      expect(again.status).toBe(409);
      expect(again.body).toEqual({
        code: 409,
        key: 'member_already_exists',
        message: 'Member already exists',
        details: `Customer '${first.body.holder_id}' already is a member of program '${camp.program_id}'`,
        request_id: expect.stringMatching(REQUEST_ID),
        resource_id: first.body.holder_id,
        resource_type: 'customer',
      });
    });

    it('423 for an inactive campaign, 404 for an unknown campaign or another project\'s campaign', async () => {
      const camp = await campaign();
      await stack.http().put(`/v1/loyalties/${camp.id}`).set(stack.a.headers).send({ active: false });
      const inactive = await add(camp.id, { customer: { source_id: unique('inactive') } });
      expect(inactive.status).toBe(423);
      expect(inactive.body).toMatchObject({ key: 'non_active_program', resource_id: camp.program_id, resource_type: 'program' });

      const unknown = await add('camp_unknown', { customer: 'x' });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual(notFound('campaign', 'camp_unknown'));
      const mine = await campaign();
      const foreign = await add(mine.id, { customer: 'x' }, stack.b);
      expect(foreign.status).toBe(404);
      expect(foreign.body).toMatchObject({ resource_type: 'campaign' });
      expect(await v2Members(mine.program_id)).toEqual([]);
    });
  });

  describe('GET /v1/loyalties/{campaignId}/members', () => {
    let camp: Campaign;
    let cards: Card[];
    const sources: string[] = [];

    beforeAll(async () => {
      camp = await campaign({ voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 }, code_config: { pattern: '######', charset: 'ABCDEFGHJK' } } });
      cards = [];
      for (let i = 0; i < 3; i += 1) {
        sources.push(unique(`lister-${i}`));
        const res = await add(camp.id, { customer: { source_id: sources[i] } });
        expect(res.status).toBe(200);
        cards.push(res.body);
      }
    });

    it('lists the published cards newest first with object, data_ref, vouchers and total', async () => {
      const res = await list(camp.id);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['data_ref', 'object', 'total', 'vouchers']);
      expect(res.body).toMatchObject({ object: 'list', data_ref: 'vouchers', total: 3 });
      expect(res.body.vouchers.map((v: Card) => v.code)).toEqual([cards[2].code, cards[1].code, cards[0].code]);
      expect(res.body.vouchers[2]).toEqual(cards[0]);
      const byName = await list(camp.name);
      expect(byName.body.total).toBe(3);
      const oldest = await list(camp.id, { order: 'created_at' });
      expect(oldest.body.vouchers.map((v: Card) => v.code)).toEqual(cards.map((c) => c.code));
    });

    it('limit and page', async () => {
      const first = await list(camp.id, { limit: 2, page: 1 });
      expect(first.body.total).toBe(3);
      expect(first.body.vouchers.map((v: Card) => v.code)).toEqual([cards[2].code, cards[1].code]);
      const second = await list(camp.id, { limit: 2, page: 2 });
      expect(second.body).toMatchObject({ total: 3 });
      expect(second.body.vouchers.map((v: Card) => v.code)).toEqual([cards[0].code]);
      const beyond = await list(camp.id, { limit: 2, page: 3 });
      expect(beyond.body).toMatchObject({ total: 3, vouchers: [] });
    });

    it('customer filter by id and by source id; code filter', async () => {
      const byId = await list(camp.id, { customer: cards[1].holder_id });
      expect(byId.body.total).toBe(1);
      expect(byId.body.vouchers.map((v: Card) => v.code)).toEqual([cards[1].code]);
      const bySource = await list(camp.id, { customer: sources[0] });
      expect(bySource.body.vouchers.map((v: Card) => v.code)).toEqual([cards[0].code]);
      const nobody = await list(camp.id, { customer: 'nobody-at-all' });
      expect(nobody.body).toMatchObject({ total: 0, vouchers: [] });
      const byCode = await list(camp.id, { code: cards[2].code });
      expect(byCode.body.vouchers.map((v: Card) => v.holder_id)).toEqual([cards[2].holder_id]);
    });

    it('created_at[before] / created_at[after] are strict bounds on the card\'s creation time', async () => {
      const before = await list(camp.id, { 'created_at[before]': cards[1].created_at });
      expect(before.status).toBe(200);
      expect(before.body.vouchers.map((v: Card) => v.code)).toEqual([cards[0].code]);
      const after = await list(camp.id, { 'created_at[after]': cards[1].created_at });
      expect(after.body.vouchers.map((v: Card) => v.code)).toEqual([cards[2].code]);
      const between = await list(camp.id, { 'created_at[after]': cards[0].created_at, 'created_at[before]': cards[2].created_at });
      expect(between.body).toMatchObject({ total: 1, vouchers: [{ code: cards[1].code }] });
    });

    it('order code and -code', async () => {
      const sorted = cards.map((c) => c.code).sort();
      const asc = await list(camp.id, { order: 'code' });
      expect(asc.body.vouchers.map((v: Card) => v.code)).toEqual(sorted);
      const desc = await list(camp.id, { order: '-code' });
      expect(desc.body.vouchers.map((v: Card) => v.code)).toEqual([...sorted].reverse());
    });

    it.each([
      [{ page: 101 }, /page must not be greater than 100/],
      [{ page: 0 }, /page must not be less than 1/],
      [{ limit: 101 }, /limit must not be greater than 100/],
      [{ limit: 'ten' }, /limit/],
      [{ order: 'name' }, /order/],
      [{ 'created_at[before]': 'yesterday' }, /created_at\.before must be an ISO 8601 date-time/],
    ])('400 invalid_query_params for %j', async (query, details) => {
      const res = await list(camp.id, query);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 400, key: 'invalid_query_params', details: expect.stringMatching(details) });
    });

    it('free cards are not listed; an unknown or foreign campaign is 404', async () => {
      const withFree = await campaign({ vouchers_count: 2 });
      expect((await list(withFree.id)).body).toMatchObject({ total: 0, vouchers: [] });
      const unknown = await list('camp_unknown');
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual(notFound('campaign', 'camp_unknown'));
      expect((await list(camp.id, {}, stack.b)).status).toBe(404);
    });
  });

  describe('GET /v1/loyalties/{campaignId}/members/{code} and /v1/loyalties/members/{code}', () => {
    it('both answer the card; 404 voucher for an unknown code, a free card, and another campaign\'s or project\'s code', async () => {
      const camp = await campaign({ vouchers_count: 2 });
      const created = (await add(camp.id, { customer: { source_id: unique('getter') } })).body;
      const [free] = await freeCodes(camp.id);

      const byCampaign = await inCampaign(camp.id, created.code);
      expect(byCampaign.status).toBe(200);
      expect(byCampaign.body).toEqual(created);
      expect((await inCampaign(camp.name, created.code)).body).toEqual(created);
      const any = await anywhere(created.code);
      expect(any.status).toBe(200);
      expect(any.body).toEqual(created);

      const unknown = await anywhere('NOPE-NOPE');
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual(notFound('voucher', 'NOPE-NOPE'));
      expect((await inCampaign(camp.id, 'NOPE-NOPE')).body).toEqual(notFound('voucher', 'NOPE-NOPE'));

      expect((await anywhere(free.code)).status).toBe(404);
      expect((await inCampaign(camp.id, free.code)).status).toBe(404);

      const second = await campaign();
      const otherCard = (await add(second.id, { customer: { source_id: unique('second') } })).body;
      const wrongCampaign = await inCampaign(camp.id, otherCard.code);
      expect(wrongCampaign.status).toBe(404);
      expect(wrongCampaign.body).toEqual(notFound('voucher', otherCard.code));
      expect((await inCampaign(second.id, otherCard.code)).status).toBe(200);

      expect((await anywhere(created.code, stack.b)).status).toBe(404);
      expect((await inCampaign(camp.id, created.code, stack.b)).status).toBe(404);
      const unknownCampaign = await inCampaign('camp_unknown', created.code);
      expect(unknownCampaign.status).toBe(404);
      expect(unknownCampaign.body.resource_type).toBe('campaign');
    });

    it('active follows the v2 member status, and a deleted member\'s card is gone from every v1 route', async () => {
      const camp = await campaign();
      const created = (await add(camp.id, { customer: { source_id: unique('status') } })).body;
      const [member] = await v2Members(camp.program_id);
      const memberPath = `/v2/loyalties/programs/${camp.program_id}/members/${member.id}`;

      expect((await stack.http().post(`${memberPath}/deactivate`).set(stack.a.headers)).body.status).toBe('INACTIVE');
      expect((await anywhere(created.code)).body.active).toBe(false);
      expect((await inCampaign(camp.id, created.code)).body.active).toBe(false);
      const listed = await list(camp.id);
      expect(listed.body.vouchers.map((v: Card) => [v.code, v.active])).toEqual([[created.code, false]]);

      expect((await stack.http().post(`${memberPath}/activate`).set(stack.a.headers)).body.status).toBe('ACTIVE');
      expect((await anywhere(created.code)).body.active).toBe(true);

      expect((await stack.http().delete(memberPath).set(stack.a.headers)).status).toBe(200);
      expect((await anywhere(created.code)).body).toEqual(notFound('voucher', created.code));
      expect((await inCampaign(camp.id, created.code)).status).toBe(404);
      expect((await list(camp.id)).body).toMatchObject({ total: 0, vouchers: [] });

      // The customer can be enrolled again through v1 and gets another card.
      const again = await add(camp.id, { customer: created.holder_id });
      expect(again.status).toBe(200);
      expect(again.body.code).not.toBe(created.code);
      expect(again.body.holder_id).toBe(created.holder_id);
    });

    it('a deleted member\'s card cannot be given out again, not even by its code', async () => {
      const camp = await campaign({ vouchers_count: 2 });
      const created = (await add(camp.id, { customer: { source_id: unique('old-card') } })).body;
      const [member] = await v2Members(camp.program_id);
      expect((await stack.http().delete(`/v2/loyalties/programs/${camp.program_id}/members/${member.id}`).set(stack.a.headers)).status).toBe(200);
      const reuse = await add(camp.id, { customer: { source_id: unique('new-owner') }, voucher: created.code });
      expect(reuse.status).toBe(400);
      expect(reuse.body).toMatchObject({ key: 'voucher_already_published', resource_id: created.id });
      const next = await add(camp.id, { customer: created.holder_id });
      expect(next.status).toBe(200);
      expect(next.body.code).not.toBe(created.code);
    });

    it('a deleted campaign\'s cards are not found', async () => {
      const camp = await campaign();
      const created = (await add(camp.id, { customer: { source_id: unique('binned') } })).body;
      expect((await stack.http().delete(`/v1/loyalties/${camp.id}`).set(stack.a.headers)).status).toBe(200);
      expect((await anywhere(created.code)).status).toBe(404);
      expect((await inCampaign(camp.id, created.code)).status).toBe(404);
    });
  });
});
