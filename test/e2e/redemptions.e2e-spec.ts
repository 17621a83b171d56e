import { useStack } from '../support/fixture.js';
import { REQUEST_ID, type TestProject, createFinishedCampaign } from '../support/harness.js';
import { type PointsCampaign, enrol, unique } from '../support/points.js';

/**
 * Redeeming rewards and rolling redemptions back over HTTP: each reward type, the answers, the ledger rows, the
 * buckets, stock and counters, every error (and that a refused request changes nothing), the reads, another
 * project's key on every route, Idempotency-Key. The races are in test/e2e/redemption-races.e2e-spec.ts.
 */
describe('redemptions over HTTP', () => {
  const stack = useStack({ projects: ['Redemptions A', 'Redemptions B'], pointsDb: true });
  const api = () => stack.http();

  const newCampaign = (who: TestProject, points = 0, extra: object = {}) =>
    createFinishedCampaign<PointsCampaign>(stack.app, who, { name: unique('Redeem campaign'), type: 'AUTO_UPDATE', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points } }, ...extra });
  const reward = async (who: TestProject, body: object): Promise<string> => {
    const res = await api().post('/v1/rewards').set(who.headers).send(body);
    if (res.status !== 200) throw new Error(`reward: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.id as string;
  };
  const assign = async (who: TestProject, campaignId: string, rewardId: string, points?: number): Promise<string> => {
    const res = await api().post(`/v1/rewards/${rewardId}/assignments`).set(who.headers).send({ campaign: campaignId, ...(points ? { parameters: { loyalty: { points } } } : {}) });
    if (res.status !== 200) throw new Error(`assignment: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.id as string;
  };
  const add = (who: TestProject, code: string, points: number, extra: object = {}) => api().post(`/v1/loyalties/members/${code}/balance`).set(who.headers).send({ points, ...extra });
  const cardRow = async (code: string) =>
    (
      await stack.db.query<{ id: string; balance: number; points: number; redeemed_points: number; redeemed_quantity: number }>(
        'SELECT id, balance::float8 AS balance, points::float8 AS points, redeemed_points::float8 AS redeemed_points, redeemed_quantity FROM vouchers WHERE code = $1',
        [code],
      )
    )[0];
  const buckets = (cardId: string) =>
    stack.db.query<{ id: string; remaining: number; total_points: number; expires_at: string | null }>(
      `SELECT id, remaining::float8 AS remaining, total_points::float8 AS total_points, to_char(expires_at, 'YYYY-MM-DD') AS expires_at FROM loyalty_points_buckets WHERE voucher_id = $1 AND status = 'ACTIVE' ORDER BY expires_at NULLS LAST`,
      [cardId],
    );
  /** Everything a redemption could change in a project, for "changes nothing". */
  const snapshot = async (projectId: string) => ({
    cards: await stack.db.query('SELECT id, points, balance, redeemed_points, redeemed_quantity, subtracted_points FROM vouchers WHERE project_id = $1 ORDER BY id', [projectId]),
    ledger: await stack.db.count('SELECT 1 FROM voucher_transactions WHERE project_id = $1', [projectId]),
    buckets: await stack.db.query('SELECT id, remaining FROM loyalty_points_buckets WHERE project_id = $1 ORDER BY id', [projectId]),
    rewards: await stack.db.query('SELECT id, redeemed FROM rewards WHERE project_id = $1 ORDER BY id', [projectId]),
    redemptions: await stack.db.count('SELECT 1 FROM redemptions WHERE project_id = $1', [projectId]),
    events: await stack.db.count(`SELECT 1 FROM events WHERE project_id = $1 AND (type LIKE 'customer.reward_redemptions.%' OR type LIKE 'redemption.%')`, [projectId]),
    orders: await stack.db.count('SELECT 1 FROM orders WHERE project_id = $1', [projectId]),
  });

  it('MATERIAL: the answer, the ledger row, buckets drained soonest-expiring first, stock and counters; then rolled back exactly', async () => {
    const a = stack.a;
    const campaign = await newCampaign(a, 0);
    const code = await enrol(stack.app, a, campaign, unique('material'));
    const card = await cardRow(code);
    // Three buckets: 100 points expiring in a month, 100 in a year, 100 that never expire.
    const soon = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    const later = new Date(Date.now() + 365 * 86_400_000).toISOString().slice(0, 10);
    expect((await add(a, code, 100, { expiration_type: 'NON_EXPIRING' })).status).toBe(200);
    expect((await add(a, code, 100, { expiration_type: 'CUSTOM_DATE', expiration_date: later })).status).toBe(200);
    expect((await add(a, code, 100, { expiration_type: 'CUSTOM_DATE', expiration_date: soon })).status).toBe(200);
    const mug = await reward(a, { name: 'Mug', parameters: { product: { id: 'prod_mug', sku_id: 'sku_blue' } }, stock: 2 });
    const assignment = await assign(a, campaign.id, mug, 150);

    const res = await api().post(`/v1/loyalties/${campaign.id}/members/${code}/redemption`).set(a.headers).send({ reward: { id: mug }, metadata: { desk: 'front' } });
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toMatch(REQUEST_ID);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^r_[0-9a-f]{18}$/),
      object: 'redemption',
      amount: 150,
      result: 'SUCCESS',
      status: 'SUCCEEDED',
      metadata: { desk: 'front' },
      order: null,
      related_object_type: 'voucher',
      related_object_id: card.id,
      customer: { object: 'customer' },
      voucher: { id: card.id, code, loyalty_card: { points: 300, balance: 150 }, redemption: { redeemed_points: 150, redeemed_quantity: 1 }, object: 'voucher' },
      reward: { id: mug, type: 'MATERIAL', assignment_id: assignment, product: { id: 'prod_mug' }, sku: { id: 'sku_blue' }, object: 'reward' },
      loyalty_card: { points: 150 },
    });
    const redemptionId = res.body.id as string;
    expect(await cardRow(code)).toMatchObject({ balance: 150, points: 300, redeemed_points: 150, redeemed_quantity: 1 });
    // Soonest first: the month's bucket emptied, 50 of the year's, the never-expiring one untouched.
    expect((await buckets(card.id)).map((b) => [b.expires_at, b.remaining])).toEqual([
      [soon, 0],
      [later, 50],
      [null, 100],
    ]);
    const [row] = await stack.db.query<{ type: string; points: string; details: Record<string, unknown>; source_id: string | null }>(
      `SELECT type, points, details, source_id FROM voucher_transactions WHERE voucher_id = $1 AND type = 'POINTS_REDEMPTION'`,
      [card.id],
    );
    expect(row).toMatchObject({ type: 'POINTS_REDEMPTION', points: '-150', source_id: null, details: { balance: { points: -150, balance: 150, total: 300 }, redemption: { id: redemptionId }, reward: { id: mug, name: 'Mug' } } });
    const transactions = await api().get(`/v1/loyalties/members/${code}/transactions`).set(a.headers);
    expect(transactions.body.data[0]).toMatchObject({ type: 'POINTS_REDEMPTION', source: null, reason: null, details: { redemption: { id: redemptionId } } });
    expect((await api().get(`/v1/rewards/${mug}`).set(a.headers)).body).toMatchObject({ stock: 2, redeemed: 1 });
    // The events: created, pending (MATERIAL: awaiting the merchant), redemption.succeeded.
    const types = await stack.db.query<{ type: string }>(`SELECT type FROM events WHERE project_id = $1 AND (type LIKE 'customer.reward_redemptions.%' OR type LIKE 'redemption.%') ORDER BY seq`, [a.project.id]);
    expect(types.map((t) => t.type)).toEqual(['customer.reward_redemptions.created', 'customer.reward_redemptions.pending', 'redemption.succeeded']);

    const got = await api().get(`/v1/redemptions/${redemptionId}`).set(a.headers);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: redemptionId, status: 'SUCCEEDED', amount: 150, related_redemptions: { rollbacks: [] } });

    const rollback = await api().post(`/v1/redemptions/${redemptionId}/rollback?reason=${encodeURIComponent('Changed mind')}&tracking_id=track-1`).set(a.headers);
    expect(rollback.status).toBe(200);
    expect(rollback.body).toMatchObject({
      id: expect.stringMatching(/^rr_[0-9a-f]{18}$/),
      object: 'redemption_rollback',
      amount: -150,
      redemption: redemptionId,
      reason: 'Changed mind',
      tracking_id: 'track-1',
      result: 'SUCCESS',
      status: 'SUCCEEDED',
      voucher: { loyalty_card: { balance: 300 }, redemption: { redeemed_points: 0, redeemed_quantity: 0 } },
      reward: { id: mug },
      loyalty_card: { points: -150 },
    });
    // The same points back to the same buckets.
    expect((await buckets(card.id)).map((b) => [b.expires_at, b.remaining])).toEqual([
      [soon, 100],
      [later, 100],
      [null, 100],
    ]);
    expect(await cardRow(code)).toMatchObject({ balance: 300, points: 300, redeemed_points: 0, redeemed_quantity: 0 });
    expect((await api().get(`/v1/rewards/${mug}`).set(a.headers)).body).toMatchObject({ redeemed: 0 });
    const [refund] = await stack.db.query<{ points: string; details: Record<string, unknown> }>(`SELECT points, details FROM voucher_transactions WHERE voucher_id = $1 AND type = 'POINTS_REFUND'`, [card.id]);
    expect(refund).toMatchObject({ points: '150', details: { balance: { points: 150, balance: 300 }, redemption: { id: redemptionId }, rollback: { id: rollback.body.id }, reward: { id: mug } } });

    const after = await api().get(`/v1/redemptions/${redemptionId}`).set(a.headers);
    expect(after.body).toMatchObject({ status: 'ROLLED_BACK', related_redemptions: { rollbacks: [{ id: rollback.body.id }] } });
    expect((await api().get(`/v1/redemptions/${rollback.body.id}`).set(a.headers)).body).toMatchObject({ id: rollback.body.id, object: 'redemption_rollback', redemption: redemptionId });
    // Once only.
    const before = await snapshot(a.project.id);
    const again = await api().post(`/v1/redemptions/${redemptionId}/rollback`).set(a.headers).send({});
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ key: 'already_rolled_back', message: 'Already rolled back', details: 'Redemption has been already rolled back.', resource_id: expect.stringMatching(/^rrf_/), resource_type: 'redemption_rollback' });
    expect(await snapshot(a.project.id)).toEqual(before);
    const rolled = await stack.db.query<{ type: string }>(`SELECT type FROM events WHERE project_id = $1 AND (type LIKE 'customer.reward_redemptions.rolledback' OR type = 'redemption.rollback.succeeded') ORDER BY seq`, [a.project.id]);
    expect(rolled.map((t) => t.type)).toEqual(['customer.reward_redemptions.rolledback', 'redemption.rollback.succeeded']);
    expect(await stack.db.brokenCards()).toEqual([]);
  });

  it('COIN: a discount on the order, with points or paying the whole order in whole units', async () => {
    const a = stack.a;
    const campaign = await newCampaign(a, 3000);
    const code = await enrol(stack.app, a, campaign, unique('coin'));
    const coin = await reward(a, { name: '100 = 20', parameters: { coin: { exchange_ratio: 20, points_ratio: 100 } } });
    await assign(a, campaign.id, coin);

    const withPoints = await api().post(`/v1/loyalties/members/${code}/redemption`).set(a.headers).send({ reward: { id: coin, points: 100 }, order: { source_id: unique('order'), amount: 45000 } });
    expect(withPoints.status).toBe(200);
    expect(withPoints.body).toMatchObject({ amount: 100, order: { amount: 45000, discount_amount: 2000, total_discount_amount: 2000, applied_discount_amount: 2000, total_amount: 43000, object: 'order' } });
    expect(withPoints.body.order.redemptions[withPoints.body.id]).toMatchObject({ related_object_type: 'voucher', related_object_parent_id: campaign.id });
    const [row] = await stack.db.query<{ order_id: string; details: { order: { id: string } } }>(`SELECT order_id, details FROM voucher_transactions WHERE details->'redemption'->>'id' = $1`, [withPoints.body.id]);
    expect(row.details.order.id).toBe(withPoints.body.order.id);

    // No points: 45000 needs 22.5 units of 100 points, so 23 units: 2300 points, the discount capped at the order.
    const whole = await api().post(`/v1/loyalties/members/${code}/redemption`).set(a.headers).send({ reward: { id: coin }, order: { amount: 45000 } });
    expect(whole.status).toBe(200);
    expect(whole.body).toMatchObject({ amount: 2300, order: { discount_amount: 45000, total_amount: 0 }, voucher: { loyalty_card: { balance: 600 } } });
    // 600 left: six units pay 12000 of the next order.
    const part = await api().post(`/v1/loyalties/members/${code}/redemption`).set(a.headers).send({ reward: { id: coin }, order: { amount: 45000 } });
    expect(part.body).toMatchObject({ amount: 600, order: { discount_amount: 12000, total_amount: 33000 } });
    const before = await snapshot(a.project.id);
    const none = await api().post(`/v1/loyalties/members/${code}/redemption`).set(a.headers).send({ reward: { id: coin }, order: { amount: 100 } });
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({ key: 'loyalty_card_points_exceeded', resource_type: 'redemption' });
    const missing = await api().post(`/v1/loyalties/members/${code}/redemption`).set(a.headers).send({ reward: { id: coin } });
    expect(missing.body).toMatchObject({ code: 400, key: 'missing_order', message: 'Missing order', details: 'An order is required when redeeming a LOYALTY_CARD' });
    expect(await snapshot(a.project.id)).toEqual(before);
    const events = await stack.db.query<{ type: string }>(`SELECT type FROM events WHERE project_id = $1 AND data->'source'->>'id' = $2 ORDER BY seq`, [a.project.id, whole.body.id]);
    expect(events.map((e) => e.type)).toEqual(['customer.reward_redemptions.created', 'customer.reward_redemptions.completed']);
    expect(await stack.db.brokenCards()).toEqual([]);
  });

  it('CAMPAIGN: the customer\'s card in the other campaign credited (enrolled first), taken back by the rollback', async () => {
    const a = stack.a;
    const campaign = await newCampaign(a, 1000);
    const gold = await newCampaign(a, 0);
    const customer = unique('gold-member');
    const code = await enrol(stack.app, a, campaign, customer);
    const bonus = await reward(a, { name: 'Gold points', parameters: { campaign: { id: gold.id, balance: 300 } } });
    await assign(a, campaign.id, bonus, 400);

    const res = await api().post(`/v1/loyalties/${campaign.id}/members/${code}/redemption`).set(a.headers).send({ reward: { id: bonus } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ amount: 400, reward: { type: 'CAMPAIGN', voucher: { campaign_id: gold.id, loyalty_card: { balance: 300 }, object: 'voucher' } }, voucher: { loyalty_card: { balance: 600 } } });
    const goldCode = res.body.reward.voucher.code as string;
    expect((await api().get(`/v1/loyalties/${gold.id}/members/${goldCode}`).set(a.headers)).body).toMatchObject({ loyalty_card: { balance: 300 } });
    // A second redemption credits the same card.
    const second = await api().post(`/v1/loyalties/members/${code}/redemption`).set(a.headers).send({ reward: { id: bonus } });
    expect(second.body.reward.voucher).toMatchObject({ code: goldCode, loyalty_card: { balance: 600 } });

    const rollback = await api().post(`/v1/redemptions/${second.body.id}/rollback`).set(a.headers);
    expect(rollback.status).toBe(200);
    expect(await cardRow(goldCode)).toMatchObject({ balance: 300 });
    expect(await cardRow(code)).toMatchObject({ balance: 600, redeemed_quantity: 1 });
    // The customer's summary: the points spent on rewards, less those rolled back.
    expect((await api().get(`/v1/customers/${customer}`).set(a.headers)).body.summary.redemptions.loyalty_card).toEqual({ redeemed_points: 400, points_to_go: 900 });
    expect(await stack.db.brokenCards()).toEqual([]);
  });

  it('refuses, changing nothing: every documented error', async () => {
    const a = stack.a;
    const campaign = await newCampaign(a, 100);
    const code = await enrol(stack.app, a, campaign, unique('refused'));
    const mug = await reward(a, { name: 'Mug', parameters: { product: { id: 'prod_mug' } }, stock: 1 });
    await assign(a, campaign.id, mug, 50);
    const dear = await reward(a, { name: 'Dear', parameters: { product: { id: 'prod_dear' } } });
    await assign(a, campaign.id, dear, 500);
    const unoffered = await reward(a, { name: 'Elsewhere', parameters: { product: { id: 'prod_x' } } });
    const other = await newCampaign(a, 0);
    const path = `/v1/loyalties/members/${code}/redemption`;
    // The one unit goes to a first redemption.
    expect((await api().post(path).set(a.headers).send({ reward: { id: mug } })).status).toBe(200);

    const before = await snapshot(a.project.id);
    const cases: [string, object, number, Record<string, unknown>][] = [
      [path, {}, 400, { key: 'missing_reward', message: 'Missing reward', details: 'A reward is required when redeeming a LOYALTY_CARD', resource_type: 'redemption' }],
      [path, { reward: { id: dear } }, 400, { key: 'loyalty_card_points_exceeded', message: 'loyalty card points exceeded' }],
      [path, { reward: { id: mug } }, 400, { key: 'quantity_exceeded' }],
      [path, { reward: { id: 'rew_nope' } }, 404, { key: 'not_found', resource_type: 'reward' }],
      [path, { reward: { id: unoffered } }, 404, { key: 'not_found', resource_type: 'reward_assignment' }],
      [path, { reward: { id: mug, points: 0 } }, 400, { key: 'invalid_payload' }],
      ['/v1/loyalties/members/NO-SUCH-CARD/redemption', { reward: { id: mug } }, 404, { key: 'not_found', resource_type: 'voucher' }],
      [`/v1/loyalties/camp_nope/members/${code}/redemption`, { reward: { id: mug } }, 404, { key: 'not_found', resource_type: 'campaign' }],
      [`/v1/loyalties/${other.id}/members/${code}/redemption`, { reward: { id: mug } }, 404, { key: 'not_found', resource_type: 'voucher' }],
    ];
    for (const [url, body, status, expected] of cases) {
      const res = await api().post(url).set(a.headers).send(body);
      expect({ url, body, status: res.status, answer: res.body }).toMatchObject({ status, answer: expected });
    }
    // A switched-off campaign: voucher_disabled.
    expect((await api().put(`/v1/loyalties/${campaign.id}`).set(a.headers).send({ active: false })).status).toBe(200);
    const disabled = await api().post(path).set(a.headers).send({ reward: { id: dear } });
    expect(disabled.body).toMatchObject({ code: 400, key: 'voucher_disabled', message: 'voucher is disabled' });
    expect((await api().post('/v1/redemptions/r_000000000000000000/rollback').set(a.headers)).body).toMatchObject({ code: 404, resource_type: 'redemption' });
    expect((await api().get('/v1/redemptions/r_000000000000000000').set(a.headers)).status).toBe(404);
    const afterCampaign = await snapshot(a.project.id);
    expect({ ...afterCampaign }).toEqual(before);
  });

  it('refuses a card that cannot be used now, a COIN order that is not there or has nothing to pay, a CAMPAIGN reward whose campaign cannot give a card', async () => {
    const a = stack.a;
    const campaign = await newCampaign(a, 1000);
    const customer = unique('not-now');
    const member = await api().post(`/v2/loyalties/programs/${campaign.program_id}/members`).set(a.headers).send({ customer_identification: { type: 'customer_source_id', customer_source_id: customer } });
    const code = member.body.cards[0].card.code as string;
    const mug = await reward(a, { name: 'Mug', parameters: { product: { id: 'prod_mug' } } });
    await assign(a, campaign.id, mug, 10);
    const coin = await reward(a, { name: 'Coin', parameters: { coin: { exchange_ratio: 1 } } });
    await assign(a, campaign.id, coin);
    const off = await newCampaign(a, 0);
    const elsewhere = await reward(a, { name: 'Points elsewhere', parameters: { campaign: { id: off.id, balance: 5 } } });
    await assign(a, campaign.id, elsewhere, 10);
    expect((await api().put(`/v1/loyalties/${off.id}`).set(a.headers).send({ active: false })).status).toBe(200);
    const path = `/v1/loyalties/members/${code}/redemption`;
    const before = await snapshot(a.project.id);

    expect((await api().post(path).set(a.headers).send({ reward: { id: coin }, order: { id: 'ord_000000000000000000', amount: 100 } })).body).toMatchObject({ code: 404, resource_type: 'order' });
    expect((await api().post(path).set(a.headers).send({ reward: { id: coin }, order: { amount: 0 } })).body).toMatchObject({ code: 400, key: 'invalid_payload' });
    expect((await api().post(path).set(a.headers).send({ reward: { id: elsewhere } })).body).toMatchObject({ code: 400, key: 'no_voucher_suitable_for_publication', resource_type: 'campaign' });
    const later = new Date(Date.now() + 30 * 86_400_000).toISOString();
    expect((await api().put(`/v1/loyalties/${campaign.id}`).set(a.headers).send({ start_date: later })).status).toBe(200);
    expect((await api().post(path).set(a.headers).send({ reward: { id: mug } })).body).toMatchObject({ code: 400, key: 'voucher_not_active' });
    const earlier = new Date(Date.now() - 30 * 86_400_000).toISOString();
    const yesterday = new Date(Date.now() - 86_400_000).toISOString();
    expect((await api().put(`/v1/loyalties/${campaign.id}`).set(a.headers).send({ start_date: earlier, expiration_date: yesterday })).status).toBe(200);
    expect((await api().post(path).set(a.headers).send({ reward: { id: mug } })).body).toMatchObject({ code: 400, key: 'voucher_expired' });
    expect((await api().put(`/v1/loyalties/${campaign.id}`).set(a.headers).send({ expiration_date: later })).status).toBe(200);
    expect((await api().post(`/v2/loyalties/programs/${campaign.program_id}/members/${member.body.id}/deactivate`).set(a.headers)).status).toBe(200);
    expect((await api().post(path).set(a.headers).send({ reward: { id: mug } })).body).toMatchObject({ code: 400, key: 'voucher_disabled', message: 'voucher is disabled' });
    expect(await snapshot(a.project.id)).toEqual(before);
    // Active again: redeemed.
    expect((await api().post(`/v2/loyalties/programs/${campaign.program_id}/members/${member.body.id}/activate`).set(a.headers)).status).toBe(200);
    expect((await api().post(path).set(a.headers).send({ reward: { id: mug } })).status).toBe(200);
  });

  it('lists: GET /v1/redemptions with its filters, GET /v1/vouchers/{code}/redemption', async () => {
    const a = stack.a;
    const campaign = await newCampaign(a, 1000);
    const customer = unique('lister');
    const code = await enrol(stack.app, a, campaign, customer);
    const mug = await reward(a, { name: 'Mug', parameters: { product: { id: 'prod_mug' } } });
    await assign(a, campaign.id, mug, 10);
    const first = await api().post(`/v1/loyalties/members/${code}/redemption`).set(a.headers).send({ reward: { id: mug } });
    const second = await api().post(`/v1/loyalties/members/${code}/redemption`).set(a.headers).send({ reward: { id: mug } });
    const rollback = await api().post(`/v1/redemptions/${first.body.id}/rollback`).set(a.headers);

    const list = await api().get(`/v1/redemptions?campaign=${campaign.id}&limit=10`).set(a.headers);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ object: 'list', data_ref: 'redemptions', total: 3 });
    expect(list.body.redemptions.map((r: { id: string }) => r.id)).toEqual([rollback.body.id, second.body.id, first.body.id]);
    expect(list.body.redemptions[2]).toMatchObject({ status: 'ROLLED_BACK', related_redemptions: { rollbacks: [{ id: rollback.body.id }] } });
    expect((await api().get(`/v1/redemptions?customer=${customer}&limit=1&page=2`).set(a.headers)).body).toMatchObject({ total: 3, redemptions: [{ id: second.body.id }] });
    expect((await api().get(`/v1/redemptions?campaign=${campaign.id}&result=FAILURE`).set(a.headers)).body).toMatchObject({ total: 0, redemptions: [] });
    expect((await api().get(`/v1/redemptions?customer=nobody-${customer}`).set(a.headers)).body).toMatchObject({ total: 0 });
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await api().get(`/v1/redemptions?campaign=${campaign.id}&created_at[after]=${future}`).set(a.headers)).body).toMatchObject({ total: 0 });
    expect((await api().get('/v1/redemptions?limit=101').set(a.headers)).status).toBe(400);

    const card = await api().get(`/v1/vouchers/${code}/redemption`).set(a.headers);
    expect(card.status).toBe(200);
    expect(card.body).toMatchObject({ quantity: null, redeemed_quantity: 1, object: 'list', data_ref: 'redemption_entries', total: 3 });
    expect(card.body.redemption_entries.map((r: { id: string }) => r.id)).toEqual([rollback.body.id, second.body.id, first.body.id]);
    expect((await api().get('/v1/vouchers/NO-SUCH/redemption').set(a.headers)).status).toBe(404);
  });

  it('another project\'s key gets 404 on every route and changes nothing', async () => {
    const a = stack.a;
    const b = stack.b.headers;
    const campaign = await newCampaign(a, 1000);
    const code = await enrol(stack.app, a, campaign, unique('isolated'));
    const mug = await reward(a, { name: 'Mug', parameters: { product: { id: 'prod_mug' } } });
    await assign(a, campaign.id, mug, 10);
    const made = await api().post(`/v1/loyalties/members/${code}/redemption`).set(a.headers).send({ reward: { id: mug } });
    const before = await snapshot(a.project.id);
    const calls: [string, string, object?][] = [
      ['post', `/v1/loyalties/members/${code}/redemption`, { reward: { id: mug } }],
      ['post', `/v1/loyalties/${campaign.id}/members/${code}/redemption`, { reward: { id: mug } }],
      ['post', `/v1/redemptions/${made.body.id}/rollback`, {}],
      ['get', `/v1/redemptions/${made.body.id}`],
      ['get', `/v1/vouchers/${code}/redemption`],
    ];
    for (const [method, url, body] of calls) {
      const req = method === 'post' ? api().post(url).set(b).send(body) : api().get(url).set(b);
      const res = await req;
      expect({ url, status: res.status, key: res.body.key }).toEqual({ url, status: 404, key: 'not_found' });
    }
    expect((await api().get(`/v1/redemptions?campaign=${campaign.id}`).set(b)).body).toMatchObject({ total: 0 });
    expect(await snapshot(a.project.id)).toEqual(before);
  });

  it('Idempotency-Key: one redemption and one rollback per key, the first answer replayed', async () => {
    const a = stack.a;
    const campaign = await newCampaign(a, 1000);
    const code = await enrol(stack.app, a, campaign, unique('idem'));
    const mug = await reward(a, { name: 'Mug', parameters: { product: { id: 'prod_mug' } } });
    await assign(a, campaign.id, mug, 10);
    const key = unique('redeem-key');
    const [one, two] = [
      await api().post(`/v1/loyalties/members/${code}/redemption`).set(a.headers).set('Idempotency-Key', key).send({ reward: { id: mug } }),
      await api().post(`/v1/loyalties/members/${code}/redemption`).set(a.headers).set('Idempotency-Key', key).send({ reward: { id: mug } }),
    ];
    expect(one.status).toBe(200);
    expect(two.body).toEqual(one.body);
    expect(await cardRow(code)).toMatchObject({ balance: 990, redeemed_quantity: 1 });
    expect((await api().post(`/v1/loyalties/members/${code}/redemption`).set(a.headers).set('Idempotency-Key', key).send({ reward: { id: mug }, metadata: { x: 1 } })).status).toBe(422);
    const rkey = unique('rollback-key');
    const r1 = await api().post(`/v1/redemptions/${one.body.id}/rollback`).set(a.headers).set('Idempotency-Key', rkey).send({});
    const r2 = await api().post(`/v1/redemptions/${one.body.id}/rollback`).set(a.headers).set('Idempotency-Key', rkey).send({});
    expect(r1.status).toBe(200);
    expect(r2.body).toEqual(r1.body);
    expect(await stack.db.count('SELECT 1 FROM redemptions WHERE redemption_id = $1', [one.body.id])).toBe(1);
    expect(await cardRow(code)).toMatchObject({ balance: 1000, redeemed_quantity: 0 });
  });
});
