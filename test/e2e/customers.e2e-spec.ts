import { useStack } from '../support/fixture.js';
import { REQUEST_ID, type TestProject } from '../support/harness.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
let seq = 0;
const unique = (base: string) => `${base}-${Date.now().toString(36)}-${(seq += 1)}`;

describe('customers: POST /v1/customers (upsert) and GET /v1/customers/{id or source_id}', () => {
  const stack = useStack({ projects: ['Customers project', 'Other customers project'] });

  const upsert = (body: unknown, who: TestProject = stack.a) => stack.http().post('/v1/customers').set(who.headers).send(body as object);
  const get = (idOrSource: string, who: TestProject = stack.a) => stack.http().get(`/v1/customers/${encodeURIComponent(idOrSource)}`).set(who.headers);
  const noLoyalty = { points: 0, referred_customers: 0, campaigns: {} };
  const noRedemptions = (pointsToGo = 0) => ({
    total_redeemed: 0,
    total_failed: 0,
    total_succeeded: 0,
    total_rolled_back: 0,
    total_rollback_failed: 0,
    total_rollback_succeeded: 0,
    gift: { redeemed_amount: 0, amount_to_go: 0 },
    loyalty_card: { redeemed_points: 0, points_to_go: pointsToGo },
  });
  const noOrders = { total_amount: 0, total_count: 0, average_amount: 0, last_order_amount: 0 };
  const noReferrals = { total: 0, campaigns: [] };

  describe('POST', () => {
    it('creates a customer with every field', async () => {
      const body = {
        source_id: unique('full'),
        name: 'Bob Smith',
        description: 'A frequent customer',
        email: 'bob.smith@example.com',
        phone: '+1 933 222 3333',
        birthdate: '1990-04-30',
        address: { city: 'New York', state: 'NY', line_1: '123 Main St.', line_2: 'APT 3 BLG 4', country: 'United States', postal_code: '10001' },
        metadata: { lang: 'en', test: true, nested: { n: 1 } },
      };
      const res = await upsert(body);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^cust_[0-9A-Za-z]{24}$/),
        ...body,
        summary: { redemptions: noRedemptions(), orders: noOrders },
        loyalty: noLoyalty,
        referrals: noReferrals,
        created_at: expect.stringMatching(ISO),
        object: 'customer',
      });
      expect(Math.abs(Date.parse(res.body.created_at) - Date.now())).toBeLessThan(60_000);
      expect((await get(res.body.id)).body).toEqual(res.body);
    });

    it('with no fields at all: a new customer without the empty fields (Voucherify leaves them out), {} metadata and no source_id', async () => {
      const res = await upsert({});
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^cust_/),
        address: null,
        metadata: {},
        summary: { redemptions: noRedemptions(), orders: noOrders },
        loyalty: noLoyalty,
        referrals: noReferrals,
        created_at: expect.stringMatching(ISO),
        object: 'customer',
      });
      const second = await upsert({});
      expect(second.body.id).not.toBe(res.body.id);
    });

    it('upsert by source_id updates only the fields sent and keeps the id', async () => {
      const sourceId = unique('upsert');
      const created = (await upsert({ source_id: sourceId, name: 'Alice', email: 'alice@example.com', metadata: { a: 1 }, address: { city: 'Paris' } })).body;

      const updated = await upsert({ source_id: sourceId, phone: '+33 1 23 45 67 89' });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({
        id: created.id,
        source_id: sourceId,
        name: 'Alice',
        email: 'alice@example.com',
        phone: '+33 1 23 45 67 89',
        metadata: { a: 1 },
        address: { city: 'Paris' },
        created_at: created.created_at,
        updated_at: expect.stringMatching(ISO),
      });

      // null clears a field (the answer leaves it out); the others stay.
      const cleared = await upsert({ source_id: sourceId, name: null, address: null });
      expect(cleared.body).toMatchObject({ id: created.id, address: null, email: 'alice@example.com', phone: '+33 1 23 45 67 89' });
      expect(cleared.body).not.toHaveProperty('name');

      // Sending only the source id changes nothing.
      const same = await upsert({ source_id: sourceId });
      expect(same.body).toEqual({ ...cleared.body });
      expect((await get(sourceId)).body).toEqual(cleared.body);
    });

    it('birthday (deprecated) is stored as birthdate; birthdate wins when both are sent', async () => {
      const old = await upsert({ source_id: unique('birthday'), birthday: '1985-12-01' });
      expect(old.status).toBe(200);
      expect(old.body.birthdate).toBe('1985-12-01');
      const both = await upsert({ source_id: unique('both'), birthday: '1985-12-01', birthdate: '1999-01-31' });
      expect(both.body.birthdate).toBe('1999-01-31');
    });

    it('by id updates that customer; a source_id sent with the id is ignored', async () => {
      const created = (await upsert({ source_id: unique('by-id'), name: 'Before', description: 'kept' })).body;
      const res = await upsert({ id: created.id, name: 'After', source_id: 'ignored-source' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: created.id, source_id: created.source_id, name: 'After', description: 'kept', updated_at: expect.stringMatching(ISO) });
      expect((await get('ignored-source')).status).toBe(404);

      const noSource = (await upsert({ name: 'Anonymous' })).body;
      const renamed = await upsert({ id: noSource.id, metadata: { vip: true } });
      expect(renamed.body).toMatchObject({ id: noSource.id, name: 'Anonymous', metadata: { vip: true } });
      expect(renamed.body).not.toHaveProperty('source_id');
    });

    it("404 for an unknown id and for another project's id, and nothing is created", async () => {
      const res = await upsert({ id: 'cust_unknownCustomer42', name: 'Ghost' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        code: 404,
        key: 'not_found',
        message: 'Resource not found',
        details: 'Cannot find customer with id cust_unknownCustomer42',
        request_id: expect.stringMatching(REQUEST_ID),
        resource_id: 'cust_unknownCustomer42',
        resource_type: 'customer',
      });
      expect((await get('cust_unknownCustomer42')).status).toBe(404);

      const mine = (await upsert({ source_id: unique('mine'), name: 'Mine' })).body;
      const hijack = await upsert({ id: mine.id, name: 'Hijacked' }, stack.b);
      expect(hijack.status).toBe(404);
      expect((await get(mine.id)).body.name).toBe('Mine');
    });

    const invalid: [string, unknown, RegExp][] = [
      ['an email that is not one', { email: 'not-an-email' }, /email must be an email address/],
      ['a birthdate in another format', { birthdate: '30-04-1990' }, /birthdate must be a date \(YYYY-MM-DD\)/],
      ['a birthdate with a time', { birthdate: '1990-04-30T00:00:00Z' }, /birthdate must be a date/],
      ['a birthdate that does not exist', { birthdate: '1990-02-30' }, /birthdate must be a date/],
      ['a birthdate month 13', { birthdate: '1990-13-01' }, /birthdate must be a date/],
      ['a birthday in another format', { birthday: '04/30/1990' }, /birthday must be a date/],
      ['an unknown field', { source_id: 'x', colour: 'red' }, /property colour is not allowed/],
      ['an unknown address field', { address: { city: 'Paris', planet: 'Earth' } }, /property address\.planet is not allowed/],
      ['an address field of the wrong type', { address: { city: 5 } }, /address\.city must be a string/],
      ['metadata that is an array', { metadata: ['a'] }, /metadata must be an object/],
      ['a name that is a number', { name: 5 }, /name must be a string/],
      ['a name over 255 characters', { name: 'n'.repeat(256) }, /name must be shorter than or equal to 255 characters/],
      ['an id that is not cust_…', { id: 'customer-1' }, /id must match/],
      ['a source_id that is a number', { source_id: 42 }, /source_id must be a string/],
      ['a blank source_id', { source_id: ' ' }, /source_id must not be blank/],
      ['a body that is an array', [{ name: 'x' }], /JSON object/],
    ];
    it.each(invalid)('400 invalid_payload: %s', async (_label, body, details) => {
      const res = await upsert(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 400, key: 'invalid_payload', message: 'Invalid payload', details: expect.stringMatching(details), request_id: expect.stringMatching(REQUEST_ID) });
    });

    it('a refused upsert by source_id does not touch the existing customer', async () => {
      const sourceId = unique('untouched');
      const created = (await upsert({ source_id: sourceId, email: 'ok@example.com' })).body;
      expect((await upsert({ source_id: sourceId, email: 'broken', name: 'New' })).status).toBe(400);
      expect((await get(sourceId)).body).toEqual(created);
    });

    it('the same source_id in another project is another customer', async () => {
      const sourceId = unique('shared');
      const mine = (await upsert({ source_id: sourceId, name: 'Mine' })).body;
      const theirs = (await upsert({ source_id: sourceId, name: 'Theirs' }, stack.b)).body;
      expect(theirs.id).not.toBe(mine.id);
      expect((await get(sourceId)).body).toMatchObject({ id: mine.id, name: 'Mine' });
      expect((await get(sourceId, stack.b)).body).toMatchObject({ id: theirs.id, name: 'Theirs' });
    });

    it('10 parallel upserts of one new source_id make one customer', async () => {
      const sourceId = unique('parallel');
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => upsert({ source_id: sourceId, metadata: { i } })));
      expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
      expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    });
  });

  describe('GET', () => {
    it('by id and by source_id (URL-encoded, with special characters)', async () => {
      const sourceId = `alice+${unique('x')}@example.com/é`;
      const created = (await upsert({ source_id: sourceId, name: 'Alice' })).body;
      const byId = await get(created.id);
      expect(byId.status).toBe(200);
      expect(byId.body).toEqual(created);
      const bySource = await get(sourceId);
      expect(bySource.status).toBe(200);
      expect(bySource.body).toEqual(created);
    });

    it('an id match wins over a customer whose source_id equals that id', async () => {
      const target = (await upsert({ name: 'Target' })).body;
      const impostor = (await upsert({ source_id: target.id, name: 'Impostor' })).body;
      expect(impostor.id).not.toBe(target.id);
      expect((await get(target.id)).body).toMatchObject({ id: target.id, name: 'Target' });
    });

    it('404 with the Voucherify body for an unknown customer and for another project\'s customer', async () => {
      const res = await get('no-such-customer');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        code: 404,
        key: 'not_found',
        message: 'Resource not found',
        details: 'Cannot find customer with id no-such-customer',
        request_id: expect.stringMatching(REQUEST_ID),
        resource_id: 'no-such-customer',
        resource_type: 'customer',
      });
      const sourceId = unique('private');
      const mine = (await upsert({ source_id: sourceId })).body;
      const byId = await get(mine.id, stack.b);
      expect(byId.status).toBe(404);
      expect(byId.body.details).toBe(`Cannot find customer with id ${mine.id}`);
      expect((await get(sourceId, stack.b)).status).toBe(404);
    });

    it('401 without valid keys', async () => {
      const res = await stack.http().get('/v1/customers/anything').set({ 'X-App-Id': stack.a.app_id, 'X-App-Token': 'wrong' });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ code: 401, key: 'unauthorized', message: 'Unauthorized' });
    });
  });

  describe('loyalty summary', () => {
    const campaign = async (name: string, points: number) => {
      const res = await stack.http().post('/v1/loyalties').set(stack.a.headers).send({ name, voucher: { type: 'LOYALTY_CARD', loyalty_card: { points } } });
      expect(res.status).toBe(200);
      return res.body as { id: string; program_id: string };
    };
    const enrol = (programId: string, sourceId: string) =>
      stack.http().post(`/v2/loyalties/programs/${programId}/members`).set(stack.a.headers).send({ customer_identification: { type: 'customer_source_id', customer_source_id: sourceId } });

    it('loyalty.points and loyalty.campaigns[<campaign name>].points follow the customer\'s cards', async () => {
      const nameA = unique('Summer Campaign');
      const nameB = unique('Winter Campaign');
      const a = await campaign(nameA, 10);
      const b = await campaign(nameB, 15);
      const sourceId = unique('loyal');
      const memberA = await enrol(a.program_id, sourceId);
      expect(memberA.status).toBe(200);
      expect((await get(sourceId)).body.loyalty).toEqual({ points: 10, referred_customers: 0, campaigns: { [nameA]: { points: 10, referred_customers: 0 } } });

      const memberB = await enrol(b.program_id, sourceId);
      expect(memberB.status).toBe(200);
      const both = await get(memberA.body.customer_id);
      expect(both.body.loyalty).toEqual({
        points: 25,
        referred_customers: 0,
        campaigns: { [nameA]: { points: 10, referred_customers: 0 }, [nameB]: { points: 15, referred_customers: 0 } },
      });
      // POST answers the same summary.
      expect((await upsert({ source_id: sourceId })).body.loyalty.points).toBe(25);

      // Another customer's cards do not count.
      await enrol(a.program_id, unique('someone-else'));
      expect((await get(sourceId)).body.loyalty.points).toBe(25);

      // A deleted member's card no longer counts; a deleted campaign's neither.
      expect((await stack.http().delete(`/v2/loyalties/programs/${b.program_id}/members/${memberB.body.id}`).set(stack.a.headers)).status).toBe(200);
      expect((await get(sourceId)).body.loyalty).toEqual({ points: 10, referred_customers: 0, campaigns: { [nameA]: { points: 10, referred_customers: 0 } } });
      expect((await stack.http().delete(`/v1/loyalties/${a.id}`).set(stack.a.headers)).status).toBe(200);
      expect((await get(sourceId)).body.loyalty).toEqual(noLoyalty);
    });

    it('summary.orders sums the customer\'s PAID and FULFILLED orders; redemptions.loyalty_card.points_to_go is the cards\' balance', async () => {
      const sourceId = unique('buyer');
      const order = (amount: number, status: string) =>
        stack.http().post('/v1/orders').set(stack.a.headers).send({ source_id: unique('summary-order'), status, amount, customer: { source_id: sourceId } });
      expect((await order(1000, 'PAID')).status).toBe(200);
      expect((await order(500, 'CREATED')).status).toBe(200);
      expect((await order(700, 'CANCELED')).status).toBe(200);
      const last = await order(2001, 'FULFILLED');
      expect(last.status).toBe(200);
      // Another customer's order does not count.
      expect((await stack.http().post('/v1/orders').set(stack.a.headers).send({ status: 'PAID', amount: 9999, customer: { source_id: unique('other-buyer') } })).status).toBe(200);
      const res = await get(sourceId);
      expect(res.body.summary).toEqual({
        redemptions: noRedemptions(),
        orders: { total_amount: 3001, total_count: 2, average_amount: 1501, last_order_amount: 2001, last_order_date: last.body.created_at },
      });
      const a = await campaign(unique('Summary Campaign'), 40);
      expect((await enrol(a.program_id, sourceId)).status).toBe(200);
      expect((await get(sourceId)).body.summary.redemptions.loyalty_card).toEqual({ redeemed_points: 0, points_to_go: 40 });
    });
  });
});
