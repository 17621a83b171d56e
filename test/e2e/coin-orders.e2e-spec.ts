import { useStack } from '../support/fixture.js';
import { enrol, payOrder, pointsCampaign, unique } from '../support/points.js';

const ADDED = 'customer.voucher.loyalty_card.pending_points.added';

/**
 * A COIN ("pay with points") redemption's discount is its order's (docs/rewards.md, "Redeeming"): the order's
 * answers say `discount_amount` and `total_amount = amount − discount_amount`, earning rules proportional to the
 * amount earn on that total, a rollback gives the discount back (the points already earned stay), and a second
 * COIN redemption of the order pays only what is left. The races are in test/e2e/redemption-races.e2e-spec.ts.
 */
describe('COIN redemptions and their order', () => {
  const stack = useStack({ projects: ['Coin orders'], pointsDb: true });
  const api = () => stack.http();
  const headers = () => stack.a.headers;

  /** A campaign earning 1 point per 1.00 (straight) and 2 per 1.00 pending for 30 days; a card with 1000 points; COIN 1 point = 1.00. */
  const setup = async () => {
    const { campaign, ruleIds } = await pointsCampaign(stack.app, stack.a, [{ every: 100, points: 1 }, { every: 100, points: 2, days: 30 }, { points: 5 }]);
    const customer = unique('coin-buyer');
    const code = await enrol(stack.app, stack.a, campaign, customer);
    expect((await api().post(`/v1/loyalties/members/${code}/balance`).set(headers()).send({ points: 1000 })).status).toBe(200);
    const coin = await api().post('/v1/rewards').set(headers()).send({ name: '1 point = 1.00', parameters: { coin: { exchange_ratio: 1, points_ratio: 1 } } });
    expect((await api().post(`/v1/rewards/${coin.body.id}/assignments`).set(headers()).send({ campaign: campaign.id })).status).toBe(200);
    return { campaign, ruleIds, customer, code, coin: coin.body.id as string, card: await stack.db.card(code) };
  };
  const accruals = (orderId: string) =>
    stack.db.query<{ points: number; rule: string }>(`SELECT points::float8 AS points, details->'earning_rule'->>'id' AS rule FROM voucher_transactions WHERE order_id = $1 AND type = 'POINTS_ACCRUAL' ORDER BY points`, [orderId]);
  const earnings = (orderId: string) => stack.db.query<{ points: number }>('SELECT points FROM order_earnings WHERE order_id = $1 ORDER BY points', [orderId]);

  it('redeemed before it is paid: the order earns on its amount after the discount; the rollback gives the discount back and the points earned stay', async () => {
    const { customer, code, coin, card } = await setup();
    const sourceId = unique('coin-order');
    const redeemed = await api().post(`/v1/loyalties/members/${code}/redemption`).set(headers()).send({ reward: { id: coin, points: 100 }, order: { source_id: sourceId, amount: 45000 } });
    expect(redeemed.status).toBe(200);
    expect(redeemed.body.order).toMatchObject({ source_id: sourceId, status: 'CREATED', amount: 45000, discount_amount: 10000, total_discount_amount: 10000, applied_discount_amount: 10000, total_amount: 35000 });
    const orderId = redeemed.body.order.id as string;
    expect((await api().get(`/v1/orders/${sourceId}`).set(headers())).body).toMatchObject({ id: orderId, amount: 45000, discount_amount: 10000, total_discount_amount: 10000, total_amount: 35000 });

    // Paid: 350 points (1 per 1.00 of 350.00), 700 pending, the FIXED rule's 5 as ever.
    const paid = await payOrder(stack.app, stack.a, { source_id: sourceId, customer, amount: 45000 });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ id: orderId, status: 'PAID', amount: 45000, discount_amount: 10000, total_amount: 35000 });
    expect((await accruals(orderId)).map((a) => a.points)).toEqual([5, 350]);
    expect((await earnings(orderId)).map((e) => e.points)).toEqual([5, 350, 700]);
    const [added] = await stack.db.query<{ data: { order: Record<string, unknown>; pending_points: { points: number } } }>(`SELECT data FROM events WHERE type = $1 AND data->'order'->>'id' = $2`, [ADDED, orderId]);
    expect(added.data.order).toMatchObject({ amount: 45000, discount_amount: 10000, total_amount: 35000 });
    expect((await stack.db.card(code)).balance).toBe(1000 - 100 + 350 + 5);

    // Rolled back: the discount goes back to the order; the points it earned stay (earning is once per order and rule).
    const rollback = await api().post(`/v1/redemptions/${redeemed.body.id}/rollback`).set(headers());
    expect(rollback.status).toBe(200);
    expect(rollback.body.order).toMatchObject({ id: orderId, status: 'PAID', amount: 45000, discount_amount: 0, total_discount_amount: 0, total_amount: 45000 });
    expect((await api().get(`/v1/orders/${orderId}`).set(headers())).body).toMatchObject({ discount_amount: 0, total_amount: 45000 });
    expect((await api().get(`/v1/redemptions/${redeemed.body.id}`).set(headers())).body).toMatchObject({ status: 'ROLLED_BACK', order: { discount_amount: 10000, total_amount: 35000 } });
    expect((await payOrder(stack.app, stack.a, { source_id: sourceId, customer, amount: 45000 })).status).toBe(200);
    expect((await accruals(orderId)).map((a) => a.points)).toEqual([5, 350]);
    expect((await stack.db.card(code)).balance).toBe(1000 + 350 + 5);
    expect(await stack.db.count('SELECT 1 FROM order_earnings WHERE order_id = $1', [orderId])).toBe(3);
    expect((await stack.db.card(code)).id).toBe(card.id);
    expect(await stack.db.brokenCards()).toEqual([]);
  });

  it('paid before it is redeemed: earned on the whole amount, the discount recorded after; a second COIN redemption pays only what is left, each rollback gives back its own part', async () => {
    const { customer, code, coin } = await setup();
    const sourceId = unique('paid-first');
    const paid = await payOrder(stack.app, stack.a, { source_id: sourceId, customer, amount: 20000 });
    expect(paid.body).toMatchObject({ discount_amount: 0, total_amount: 20000 });
    const orderId = paid.body.id as string;
    expect((await accruals(orderId)).map((a) => a.points)).toEqual([5, 200]);

    const first = await api().post(`/v1/loyalties/members/${code}/redemption`).set(headers()).send({ reward: { id: coin, points: 50 }, order: { id: orderId } });
    expect(first.body.order).toMatchObject({ status: 'PAID', amount: 20000, discount_amount: 5000, applied_discount_amount: 5000, total_amount: 15000 });
    // Without points: the rest of the order (150.00), 150 points.
    const second = await api().post(`/v1/loyalties/members/${code}/redemption`).set(headers()).send({ reward: { id: coin }, order: { source_id: sourceId } });
    expect(second.body).toMatchObject({ amount: 150, order: { discount_amount: 20000, applied_discount_amount: 15000, total_amount: 0 } });
    // Nothing left to pay.
    const none = await api().post(`/v1/loyalties/members/${code}/redemption`).set(headers()).send({ reward: { id: coin }, order: { id: orderId } });
    expect(none.body).toMatchObject({ code: 400, key: 'invalid_payload' });
    expect((await accruals(orderId)).map((a) => a.points)).toEqual([5, 200]);

    expect((await api().post(`/v1/redemptions/${first.body.id}/rollback`).set(headers())).body.order).toMatchObject({ discount_amount: 15000, total_amount: 5000 });
    expect((await api().post(`/v1/redemptions/${second.body.id}/rollback`).set(headers())).body.order).toMatchObject({ discount_amount: 0, total_amount: 20000 });
    // A second rollback is refused and gives nothing back twice.
    expect((await api().post(`/v1/redemptions/${second.body.id}/rollback`).set(headers())).body).toMatchObject({ key: 'already_rolled_back' });
    expect((await api().get(`/v1/orders/${orderId}`).set(headers())).body).toMatchObject({ discount_amount: 0, total_amount: 20000 });
    expect((await stack.db.card(code)).balance).toBe(1000 + 200 + 5);
    expect(await stack.db.brokenCards()).toEqual([]);
  });
});
