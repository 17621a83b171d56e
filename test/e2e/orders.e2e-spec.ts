import { useStack } from '../support/fixture.js';
import { createFinishedCampaign } from '../support/harness.js';
import { enrol, payOrder, pointsCampaign, unique } from '../support/points.js';

const ORDER_ID = /^ord_[a-f0-9]{18}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Orders and earning on them. No worker runs here: entries stay PENDING (their days are long), so what is
 * checked is what the API's transaction wrote.
 */
describe('orders and earning (/v1/orders)', () => {
  const stack = useStack({ projects: ['Orders project', 'Other orders project'], pointsDb: true, beforeClose: async ({ db }) => expect(await db.brokenCards()).toEqual([]) });
  const { db } = stack;

  describe('the order resource', () => {
    it('creates an order with every field, and the customer by source id', async () => {
      const res = await stack.http()
        .post('/v1/orders')
        .set(stack.a.headers)
        .send({ source_id: unique('order'), amount: 2499, customer: { source_id: unique('buyer'), name: 'Jack' }, items: [{ product_id: 'prod_1', quantity: 2, price: 500, amount: 1000 }], metadata: { channel: 'web' } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: expect.stringMatching(ORDER_ID),
        source_id: expect.stringMatching(/^order-/),
        status: 'CREATED',
        amount: 2499,
        discount_amount: 0,
        total_discount_amount: 0,
        total_amount: 2499,
        items: [{ product_id: 'prod_1', quantity: 2, price: 500, amount: 1000, object: 'order_item' }],
        metadata: { channel: 'web' },
        customer_id: expect.stringMatching(/^cust_/),
        customer: { id: res.body.customer_id, object: 'customer' },
        referrer_id: null,
        created_at: expect.stringMatching(ISO),
        updated_at: null,
        object: 'order',
      });
      const customer = await stack.http().get(`/v1/customers/${res.body.customer_id}`).set(stack.a.headers);
      expect(customer.body.name).toBe('Jack');
    });

    it('upserts by source_id (only the fields sent change), by id, and reads by id or source_id', async () => {
      const sourceId = unique('upsert');
      const first = await stack.http().post('/v1/orders').set(stack.a.headers).send({ source_id: sourceId, amount: 100, metadata: { a: 1 } });
      const again = await stack.http().post('/v1/orders').set(stack.a.headers).send({ source_id: sourceId, amount: 200 });
      expect(again.body).toMatchObject({ id: first.body.id, amount: 200, metadata: { a: 1 }, updated_at: expect.stringMatching(ISO) });
      const byId = await stack.http().post('/v1/orders').set(stack.a.headers).send({ id: first.body.id, status: 'FULFILLED' });
      expect(byId.body).toMatchObject({ id: first.body.id, status: 'FULFILLED', amount: 200 });
      const put = await stack.http().put(`/v1/orders/${sourceId}`).set(stack.a.headers).send({ metadata: { b: 2 } });
      expect(put.body).toMatchObject({ id: first.body.id, metadata: { b: 2 }, status: 'FULFILLED' });
      for (const key of [first.body.id, sourceId]) {
        const got = await stack.http().get(`/v1/orders/${key}`).set(stack.a.headers);
        expect(got.body).toEqual(put.body);
      }
    });

    it('404s: unknown id on POST, PUT and GET; another project\'s order', async () => {
      const mine = (await stack.http().post('/v1/orders').set(stack.a.headers).send({ source_id: unique('mine') })).body;
      const unknownPost = await stack.http().post('/v1/orders').set(stack.a.headers).send({ id: 'ord_0000000000000000aa' });
      expect(unknownPost.status).toBe(404);
      expect(unknownPost.body).toMatchObject({ key: 'not_found', resource_type: 'order', resource_id: 'ord_0000000000000000aa' });
      expect((await stack.http().put('/v1/orders/nope').set(stack.a.headers).send({ amount: 1 })).status).toBe(404);
      expect((await stack.http().get(`/v1/orders/${mine.id}`).set(stack.b.headers)).status).toBe(404);
      expect((await stack.http().get(`/v1/orders/${mine.source_id}`).set(stack.b.headers)).status).toBe(404);
      expect((await stack.http().put(`/v1/orders/${mine.id}`).set(stack.b.headers).send({ status: 'PAID' })).status).toBe(404);
    });

    it.each([
      ['a negative amount', { amount: -1 }, 'amount must not be less than 0'],
      ['a fractional amount', { amount: 1.5 }, 'amount must be an integer number'],
      ['an amount given as text', { amount: '10' }, 'amount must be an integer number'],
      ['an unknown status', { status: 'SHIPPED' }, /^status must be one of the following values: CREATED, PAID, CANCELED, FULFILLED/],
      ['a malformed id', { id: 'order-1' }, /^id must match/],
      ['a blank source_id', { source_id: '  ' }, 'source_id must not be blank'],
      ['a customer that is not an object', { customer: 'cust_1' }, 'customer must be an object'],
      ['an item with a negative quantity', { items: [{ quantity: -1 }] }, 'items.0.quantity must not be less than 0'],
      ['an unknown field', { discount: 5 }, 'property discount is not allowed'],
      ['null status', { status: null }, /^status must be one of/],
    ])('400 invalid_payload naming the field: %s', async (_name, body, details) => {
      const res = await stack.http().post('/v1/orders').set(stack.a.headers).send(body);
      expect(res.status).toBe(400);
      expect(res.body.key).toBe('invalid_payload');
      if (typeof details === 'string') expect(res.body.details).toContain(details);
      else expect(res.body.details).toMatch(details);
    });
  });

  describe('earning', () => {
    it('a paid order earns under every active rule: accrual to the balance, or a pending entry', async () => {
      const { campaign, ruleIds } = await pointsCampaign(stack.app, stack.a, [{ points: 5 }, { every: 100, points: 2 }, { points: 30, days: 10 }]);
      const customer = unique('earner');
      const code = await enrol(stack.app, stack.a, campaign, customer);
      const order = await payOrder(stack.app, stack.a, { source_id: unique('paid'), customer, amount: 2599 });
      expect(order.status).toBe(200);
      // 5 (FIXED) + floor(2599 / 100) × 2 = 55 straight away; 30 pending.
      expect(await db.card(code)).toMatchObject({ balance: 55, points: 55, pending_points: 30 });
      const card = await stack.http().get(`/v1/loyalties/members/${code}`).set(stack.a.headers);
      expect(card.body.loyalty_card).toEqual({ points: 55, balance: 55, pending_points: 30, expired_points: 0, subtracted_points: 0, next_expiration_points: 0 });
      const tx = await stack.http().get(`/v1/loyalties/members/${code}/transactions`).set(stack.a.headers);
      type Tx = { type: string; details: { balance: { balance: number; points: number }; earning_rule: { id: string } } };
      const [newest, older] = tx.body.data as Tx[];
      // Newest first, each row with the balance right after it.
      expect(newest.details.balance.balance).toBe(55);
      expect(older.details.balance.balance).toBe(55 - newest.details.balance.points);
      expect(new Map((tx.body.data as Tx[]).map((t) => [t.details.earning_rule.id, [t.type, t.details.balance.points]]))).toEqual(
        new Map([
          [ruleIds[0], ['POINTS_ACCRUAL', 5]],
          [ruleIds[1], ['POINTS_ACCRUAL', 50]],
        ]),
      );
      const [entry] = await db.entries({ orderId: order.body.id });
      expect(entry).toMatchObject({ status: 'PENDING', points: 30 });
      // activates_at = creation + 10 × PENDING_POINTS_DAY_MS (one real day by default).
      expect(entry.activates_at.getTime() - entry.created_at.getTime()).toBe(10 * 86_400_000);
    });

    it('a customer who is not a member earns nothing, unless the campaign has auto_join (then it joins)', async () => {
      const plain = await pointsCampaign(stack.app, stack.a, [{ points: 4 }]);
      const joining = await pointsCampaign(stack.app, stack.a, [{ points: 6 }], { auto_join: true });
      const customer = unique('stranger');
      const order = await payOrder(stack.app, stack.a, { source_id: unique('stranger-order'), customer });
      const members = (programId: string) => stack.http().get(`/v2/loyalties/programs/${programId}/members`).query({ 'filters[customer_id][conditions][$is]': order.body.customer_id }).set(stack.a.headers);
      expect((await members(plain.campaign.program_id)).body.data).toHaveLength(0);
      const joined = (await members(joining.campaign.program_id)).body.data;
      expect(joined).toHaveLength(1);
      const cards = await db.query<{ balance: number }>('SELECT balance::float8 AS balance FROM vouchers WHERE holder_id = $1', [order.body.customer_id]);
      expect(cards).toEqual([{ balance: 6 }]);
    });

    it('inactive rules, rules outside their dates, inactive members and campaigns switched off earn nothing', async () => {
      const { campaign, ruleIds } = await pointsCampaign(stack.app, stack.a, [{ points: 1 }, { points: 2 }, { points: 4 }]);
      await stack.http().put(`/v1/loyalties/${campaign.id}/earning-rules/${ruleIds[0]}`).set(stack.a.headers).send({ active: false });
      await stack.http().put(`/v1/loyalties/${campaign.id}/earning-rules/${ruleIds[1]}`).set(stack.a.headers).send({ start_date: '2099-01-01T00:00:00Z' });
      const customer = unique('partial');
      const code = await enrol(stack.app, stack.a, campaign, customer);
      await payOrder(stack.app, stack.a, { source_id: unique('partial-order'), customer });
      expect((await db.card(code)).balance).toBe(4);

      const inactive = unique('inactive');
      const inactiveCode = await enrol(stack.app, stack.a, campaign, inactive);
      const customerId = (await db.query<{ holder_id: string }>('SELECT holder_id FROM vouchers WHERE code = $1', [inactiveCode]))[0].holder_id;
      const memberId = (await db.query<{ id: string }>('SELECT id FROM members WHERE customer_id = $1', [customerId]))[0].id;
      await stack.http().post(`/v2/loyalties/programs/${campaign.program_id}/members/${memberId}/deactivate`).set(stack.a.headers);
      await payOrder(stack.app, stack.a, { source_id: unique('inactive-order'), customer: inactive });
      expect((await db.card(inactiveCode)).balance).toBe(0);

      await stack.http().put(`/v1/loyalties/${campaign.id}`).set(stack.a.headers).send({ active: false });
      await payOrder(stack.app, stack.a, { source_id: unique('off-order'), customer });
      expect((await db.card(code)).balance).toBe(4);
    });

    it('earns once per (order, rule): sent again, re-paid, or 20 times at once', async () => {
      const { campaign } = await pointsCampaign(stack.app, stack.a, [{ points: 3 }, { points: 8, days: 5 }]);
      const customer = unique('repeat');
      const code = await enrol(stack.app, stack.a, campaign, customer);
      const sourceId = unique('repeat-order');
      await payOrder(stack.app, stack.a, { source_id: sourceId, customer });
      await payOrder(stack.app, stack.a, { source_id: sourceId, customer });
      await stack.http().put(`/v1/orders/${sourceId}`).set(stack.a.headers).send({ status: 'CREATED' });
      await stack.http().put(`/v1/orders/${sourceId}`).set(stack.a.headers).send({ status: 'PAID', amount: 99999 });
      expect(await db.card(code)).toMatchObject({ balance: 3, pending_points: 8 });

      const racing = unique('race-order');
      const answers = await Promise.all(Array.from({ length: 20 }, () => payOrder(stack.app, stack.a, { source_id: racing, customer })));
      expect(answers.map((res) => res.status)).toEqual(Array(20).fill(200));
      expect(new Set(answers.map((res) => res.body.id)).size).toBe(1);
      expect(await db.card(code)).toMatchObject({ balance: 6, pending_points: 16 });
      expect(await db.entries({ orderId: answers[0].body.id })).toHaveLength(1);
      expect(await db.count("SELECT 1 FROM events WHERE type = 'customer.voucher.loyalty_card.pending_points.added' AND data->'order'->>'id' = $1", [answers[0].body.id])).toBe(1);
    });

    it('a canceled order cancels its pending entries (event canceled), keeps accrued points, and never earns again', async () => {
      const { campaign } = await pointsCampaign(stack.app, stack.a, [{ points: 2 }, { points: 20, days: 30 }]);
      const customer = unique('returner');
      const code = await enrol(stack.app, stack.a, campaign, customer);
      const order = (await payOrder(stack.app, stack.a, { source_id: unique('returned'), customer })).body;
      expect(await db.card(code)).toMatchObject({ balance: 2, pending_points: 20 });
      const canceled = await stack.http().put(`/v1/orders/${order.id}`).set(stack.a.headers).send({ status: 'CANCELED' });
      expect(canceled.body.status).toBe('CANCELED');
      expect(await db.card(code)).toMatchObject({ balance: 2, pending_points: 0 });
      expect((await db.entries({ orderId: order.id })).map((e) => e.status)).toEqual(['CANCELED']);
      const events = await stack.http().get('/v1/events').query({ type: 'customer.voucher.loyalty_card.pending_points.canceled' }).set(stack.a.headers);
      const event = events.body.data.find((e: { data: { order: { id: string } } }) => e.data.order.id === order.id);
      expect(event.data.voucher_pending_points_balance).toMatchObject({ points: -20, total: 0, operation_type: 'AUTOMATIC' });
      expect(event.data.pending_points).toMatchObject({ status: 'CANCELED', points: 20 });
      await stack.http().put(`/v1/orders/${order.id}`).set(stack.a.headers).send({ status: 'PAID' });
      expect(await db.card(code)).toMatchObject({ balance: 2, pending_points: 0 });
    });

    it('a card made with initial points starts its ledger with them (POINTS_ADDITION)', async () => {
      const campaign = await createFinishedCampaign<{ id: string; program_id: string; name: string }>(stack.app, stack.a, { name: unique('Initial points'), voucher: { loyalty_card: { points: 100 } } });
      const code = await enrol(stack.app, stack.a, campaign, unique('initial'));
      const tx = await stack.http().get(`/v1/loyalties/${campaign.id}/members/${code}/transactions`).set(stack.a.headers);
      expect(tx.body.data).toEqual([expect.objectContaining({ type: 'POINTS_ADDITION', reason: "initial points of the campaign's loyalty card", details: expect.objectContaining({ balance: expect.objectContaining({ balance: 100, points: 100 }) }) })]);
      expect((await db.card(code)).balance).toBe(100);
    });

    it('an amount that would overflow a card under a proportional rule is refused, and nothing is written', async () => {
      const { campaign } = await pointsCampaign(stack.app, stack.a, [{ every: 1, points: 1000 }]);
      const customer = unique('whale');
      const code = await enrol(stack.app, stack.a, campaign, customer);
      const res = await payOrder(stack.app, stack.a, { source_id: unique('whale-order'), customer, amount: 10_000_000 });
      expect(res.status).toBe(400);
      expect(res.body.details).toMatch(/would earn 10000000000 points under earning rule ern_/);
      expect((await db.card(code)).balance).toBe(0);
    });
  });
});
