import type { ChildProcess } from 'node:child_process';
import { useStack } from '../support/fixture.js';
import { http, startApi, startWorkerProcess, testConfig, waitFor } from '../support/harness.js';
import { Answers, addDueBuckets, enrol, inParallel, payOrder, pointsCampaign, projectViolations, unique } from '../support/points.js';

const DAY_MS = 1_000;
const SWEEP_MS = 100;
const EXCEEDED = '400 loyalty_card_points_exceeded';

/**
 * Redemptions under concurrency: many on one card, many on one reward's last units across cards, many
 * rollbacks of one redemption, and redemptions racing paid orders, removals by hand and two worker processes
 * activating pending points and expiring buckets on the same card. No answer is a 5xx; card, ledger, buckets,
 * stock, redemption rows and events agree.
 */
describe('redemptions under concurrency', () => {
  const env = { PENDING_POINTS_DAY_MS: String(DAY_MS), PENDING_POINTS_SWEEP_MS: String(SWEEP_MS), POINTS_EXPIRY_SWEEP_MS: String(SWEEP_MS), LOG_LEVEL: 'info' };
  const workers = new Set<ChildProcess>();
  const stack = useStack({
    config: { PENDING_POINTS_DAY_MS: String(DAY_MS), RATE_LIMIT_PER_SECOND: '0', DATABASE_QUERY_TIMEOUT_MS: '5000' },
    projects: ['Redemption races project'],
    pointsDb: true,
    beforeClose: async ({ db, a }) => {
      for (const worker of workers) worker.kill('SIGKILL');
      expect(await projectViolations(db, a.project.id)).toEqual([]);
      expect(await db.brokenCards()).toEqual([]);
    },
  });
  const { db } = stack;
  const api = () => stack.http();
  const headers = () => stack.a.headers;
  const redeem = (code: string, body: object) => api().post(`/v1/loyalties/members/${code}/redemption`).set(headers()).send(body);
  const reward = async (body: object): Promise<string> => {
    const res = await api().post('/v1/rewards').set(headers()).send(body);
    if (res.status !== 200) throw new Error(`reward: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.id as string;
  };
  const assign = async (campaignId: string, rewardId: string, points: number) => {
    const res = await api().post(`/v1/rewards/${rewardId}/assignments`).set(headers()).send({ campaign: campaignId, parameters: { loyalty: { points } } });
    if (res.status !== 200) throw new Error(`assignment: ${res.status} ${JSON.stringify(res.body)}`);
  };
  const redemptionRows = (cardId: string) => db.count(`SELECT 1 FROM redemptions WHERE voucher_id = $1 AND object = 'redemption'`, [cardId]);

  it('40 redemptions at once on one card that affords 7: exactly 7 succeed, the rest 400 loyalty_card_points_exceeded (3 rounds)', async () => {
    const { campaign } = await pointsCampaign(stack.app, stack.a, [{ points: 10 }]);
    const code = await enrol(stack.app, stack.a, campaign, unique('hot-card'));
    const card = await db.card(code);
    const mug = await reward({ name: 'Mug', parameters: { product: { id: 'prod_mug' } } });
    await assign(campaign.id, mug, 100);
    for (let round = 0; round < 3; round += 1) {
      expect((await api().post(`/v1/loyalties/members/${code}/balance`).set(headers()).send({ points: 750 })).status).toBe(200);
      const answers = new Answers();
      await inParallel(Array.from({ length: 40 }, () => async () => answers.add(await redeem(code, { reward: { id: mug } }))), 40);
      expect(answers.report(['200', EXCEEDED])).toEqual({ histogram: { '200': 7, [EXCEEDED]: 33 }, unexpected: {} });
      expect((await db.card(code)).balance).toBe(50);
      await api().post(`/v1/loyalties/members/${code}/balance`).set(headers()).send({ points: -50 });
    }
    expect(await redemptionRows(card.id)).toBe(21);
    // Concurrent redemptions of the card shared batch transactions (each row's xmin is the transaction that wrote it).
    const [{ n: transactions }] = await db.query<{ n: number }>(`SELECT count(DISTINCT xmin::text)::int AS n FROM redemptions WHERE voucher_id = $1`, [card.id]);
    expect(transactions).toBeLessThan(21);
    expect(await db.count(`SELECT 1 FROM voucher_transactions WHERE voucher_id = $1 AND type = 'POINTS_REDEMPTION'`, [card.id])).toBe(21);
    expect(await db.count(`SELECT 1 FROM events WHERE type = 'redemption.succeeded' AND data->'voucher'->>'id' = $1`, [card.id])).toBe(21);
    expect(await db.count(`SELECT 1 FROM events WHERE type = 'customer.reward_redemptions.created' AND data->'voucher'->>'id' = $1`, [card.id])).toBe(21);
    const [row] = await db.query<{ redeemed_points: string; redeemed_quantity: number }>('SELECT redeemed_points, redeemed_quantity FROM vouchers WHERE id = $1', [card.id]);
    expect(row).toEqual({ redeemed_points: '2100', redeemed_quantity: 21 });
    // A reward without a stock: its `redeemed` is counted from its SUCCEEDED redemptions.
    expect((await api().get(`/v1/rewards/${mug}`).set(headers())).body).toMatchObject({ stock: null, redeemed: 21 });
    expect(await db.brokenCards()).toEqual([]);
  }, 60_000);

  it('a reward with 5 units left, 30 cards redeeming it at once: exactly 5 succeed, the rest 400 quantity_exceeded, nothing of theirs changed', async () => {
    const { campaign } = await pointsCampaign(stack.app, stack.a, [{ points: 10 }], { type: 'AUTO_UPDATE', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 100 } } });
    const codes = await Promise.all(Array.from({ length: 30 }, (_, i) => enrol(stack.app, stack.a, campaign, unique(`stock-${i}`))));
    const mug = await reward({ name: 'Last mugs', parameters: { product: { id: 'prod_last' } }, stock: 5 });
    await assign(campaign.id, mug, 60);
    const answers = new Answers();
    await inParallel(codes.map((code) => async () => answers.add(await redeem(code, { reward: { id: mug } }))), 30);
    expect(answers.report(['200', '400 quantity_exceeded'])).toEqual({ histogram: { '200': 5, '400 quantity_exceeded': 25 }, unexpected: {} });
    expect((await api().get(`/v1/rewards/${mug}`).set(headers())).body).toMatchObject({ stock: 5, redeemed: 5 });
    const balances = await Promise.all(codes.map(async (code) => (await db.card(code)).balance));
    expect(balances.filter((b) => b === 40)).toHaveLength(5);
    expect(balances.filter((b) => b === 100)).toHaveLength(25);
    expect(await db.count(`SELECT 1 FROM redemptions WHERE reward_id = $1`, [mug])).toBe(5);
  }, 60_000);

  it('two APIs, each with its own batches, redeem the same cards and reward at once: exactly the stock succeeds, no card pays past its balance (3 rounds)', async () => {
    // A second API (its own collector, so its own batches) on the same database, beside the stack's.
    const second = await startApi(testConfig({ RATE_LIMIT_PER_SECOND: '0', DATABASE_QUERY_TIMEOUT_MS: '5000' }));
    try {
      const { campaign } = await pointsCampaign(stack.app, stack.a, [{ points: 10 }], { type: 'AUTO_UPDATE', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 100 } } });
      for (let round = 0; round < 3; round += 1) {
        const codes = await Promise.all(Array.from({ length: 4 }, (_, i) => enrol(stack.app, stack.a, campaign, unique(`two-apis-${round}-${i}`))));
        const mug = await reward({ name: `Shared mugs ${round}`, parameters: { product: { id: 'prod_shared' } }, stock: 10 });
        await assign(campaign.id, mug, 30);
        // Each card affords 3 (90 of its 100 points): 12 by points, 10 by stock.
        const answers = new Answers();
        const perCard = new Map<string, number>();
        await inParallel(
          codes.flatMap((code) =>
            Array.from({ length: 8 }, (_, i) => async () => {
              const app = i % 2 === 0 ? api() : http(second);
              const res = await app.post(`/v1/loyalties/members/${code}/redemption`).set(headers()).send({ reward: { id: mug } });
              answers.add(res);
              if (res.status === 200) perCard.set(code, (perCard.get(code) ?? 0) + 1);
            }),
          ),
          32,
        );
        const report = answers.report(['200', '400 quantity_exceeded', EXCEEDED]);
        expect(report.unexpected).toEqual({});
        expect(report.histogram['200']).toBe(10);
        expect((await api().get(`/v1/rewards/${mug}`).set(headers())).body).toMatchObject({ stock: 10, redeemed: 10 });
        for (const code of codes) {
          expect(perCard.get(code) ?? 0).toBeLessThanOrEqual(3);
          expect((await db.card(code)).balance).toBe(100 - 30 * (perCard.get(code) ?? 0));
        }
        expect(await db.count(`SELECT 1 FROM redemptions WHERE reward_id = $1`, [mug])).toBe(10);
      }
      expect(await db.brokenCards()).toEqual([]);
    } finally {
      await second.close();
    }
  }, 90_000);

  it('a reward without a stock given one while 30 cards redeem it: never more successes than that stock, its redeemed = its SUCCEEDED redemptions (3 rounds)', async () => {
    const { campaign } = await pointsCampaign(stack.app, stack.a, [{ points: 10 }], { type: 'AUTO_UPDATE', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 100 } } });
    const outcomes = new Set<string>();
    for (let round = 0; round < 3; round += 1) {
      const codes = await Promise.all(Array.from({ length: 30 }, (_, i) => enrol(stack.app, stack.a, campaign, unique(`late-stock-${round}-${i}`))));
      const poster = await reward({ name: `Poster ${round}`, parameters: { product: { id: 'prod_poster' } } });
      await assign(campaign.id, poster, 60);
      const answers = new Answers();
      let stockSet: { status: number; key?: string } = { status: 0 };
      // The stock is set among the redemptions: before, between or after them, as the row's locks decide.
      const jobs: (() => Promise<unknown>)[] = codes.map((code) => async () => answers.add(await redeem(code, { reward: { id: poster } })));
      jobs.splice(10, 0, async () => {
        const res = await api().put(`/v1/rewards/${poster}`).set(headers()).send({ stock: 12 });
        stockSet = { status: res.status, key: res.body.key as string | undefined };
      });
      await inParallel(jobs, 31);
      const report = answers.report(['200', '400 quantity_exceeded']);
      expect(report.unexpected).toEqual({});
      const succeeded = await db.count(`SELECT 1 FROM redemptions WHERE reward_id = $1 AND object = 'redemption' AND status = 'SUCCEEDED'`, [poster]);
      expect(report.histogram['200'] ?? 0).toBe(succeeded);
      const after = (await api().get(`/v1/rewards/${poster}`).set(headers())).body;
      if (stockSet.status === 200) {
        // Counted when the stock was set, then a unit per redemption after it: never past the stock.
        expect(succeeded).toBeLessThanOrEqual(12);
        expect(after).toMatchObject({ stock: 12, redeemed: succeeded });
        outcomes.add('stock set');
      } else {
        // More than 12 had already succeeded: the stock is refused and the reward stays without one.
        expect(stockSet).toEqual({ status: 400, key: 'invalid_payload' });
        expect(after).toMatchObject({ stock: null, redeemed: 30 });
        expect(succeeded).toBe(30);
        outcomes.add('stock refused');
      }
    }
    process.stderr.write(`late stock: ${[...outcomes].join(', ')}\n`);
    expect(await db.brokenCards()).toEqual([]);
  }, 90_000);

  it('one card, 30 redemptions of a reward given a stock among them: only 200 or quantity_exceeded, never past the stock, the card equal to its ledger (3 rounds)', async () => {
    // The batches lock the card first, then the reward (held FOR KEY SHARE while it has no stock, its units taken
    // FOR NO KEY UPDATE once it has one): batches that read it without a stock and take units of the new one must
    // neither deadlock nor oversell.
    const { campaign } = await pointsCampaign(stack.app, stack.a, [{ points: 10 }]);
    const code = await enrol(stack.app, stack.a, campaign, unique('late-stock-one-card'));
    const card = await db.card(code);
    const outcomes = new Set<string>();
    let spent = 0;
    for (let round = 0; round < 3; round += 1) {
      expect((await api().post(`/v1/loyalties/members/${code}/balance`).set(headers()).send({ points: 300 })).status).toBe(200);
      const before = (await db.card(code)).balance;
      const poster = await reward({ name: `One-card poster ${round}`, parameters: { product: { id: 'prod_poster' } } });
      await assign(campaign.id, poster, 10);
      const answers = new Answers();
      let stockSet = 0;
      const jobs: (() => Promise<unknown>)[] = Array.from({ length: 30 }, () => async () => answers.add(await redeem(code, { reward: { id: poster } })));
      jobs.splice(10, 0, async () => {
        stockSet = (await api().put(`/v1/rewards/${poster}`).set(headers()).send({ stock: 12 })).status;
      });
      await inParallel(jobs, 31);
      expect(answers.report(['200', '400 quantity_exceeded']).unexpected).toEqual({});
      const succeeded = await db.count(`SELECT 1 FROM redemptions WHERE reward_id = $1 AND object = 'redemption' AND status = 'SUCCEEDED'`, [poster]);
      expect(answers.report(['200', '400 quantity_exceeded']).histogram['200'] ?? 0).toBe(succeeded);
      if (stockSet === 200) {
        expect(succeeded).toBeLessThanOrEqual(12);
        expect((await api().get(`/v1/rewards/${poster}`).set(headers())).body).toMatchObject({ stock: 12, redeemed: succeeded });
        outcomes.add('stock set');
      } else {
        expect(succeeded).toBe(30);
        outcomes.add('stock refused');
      }
      expect((await db.card(code)).balance).toBe(before - 10 * succeeded);
      spent += succeeded;
    }
    process.stderr.write(`late stock on one card: ${[...outcomes].join(', ')}\n`);
    expect(await db.count(`SELECT 1 FROM voucher_transactions WHERE voucher_id = $1 AND type = 'POINTS_REDEMPTION'`, [card.id])).toBe(spent);
    expect(await db.brokenCards()).toEqual([]);
  }, 90_000);

  it('20 rollbacks of one redemption at once: one refund, the rest 400 already_rolled_back (3 rounds)', async () => {
    const { campaign } = await pointsCampaign(stack.app, stack.a, [{ points: 10 }]);
    const code = await enrol(stack.app, stack.a, campaign, unique('rollback-race'));
    const card = await db.card(code);
    const mug = await reward({ name: 'Mug', parameters: { product: { id: 'prod_mug' } }, stock: 3 });
    await assign(campaign.id, mug, 100);
    expect((await api().post(`/v1/loyalties/members/${code}/balance`).set(headers()).send({ points: 300 })).status).toBe(200);
    for (let round = 0; round < 3; round += 1) {
      const made = await redeem(code, { reward: { id: mug } });
      expect(made.status).toBe(200);
      const answers = new Answers();
      await inParallel(Array.from({ length: 20 }, () => async () => answers.add(await api().post(`/v1/redemptions/${made.body.id}/rollback`).set(headers()).send({}))), 20);
      expect(answers.report(['200', '400 already_rolled_back'])).toEqual({ histogram: { '200': 1, '400 already_rolled_back': 19 }, unexpected: {} });
      expect(await db.count(`SELECT 1 FROM voucher_transactions WHERE type = 'POINTS_REFUND' AND details->'redemption'->>'id' = $1`, [made.body.id])).toBe(1);
      expect((await db.card(code)).balance).toBe(300);
    }
    expect((await api().get(`/v1/rewards/${mug}`).set(headers()).send()).body).toMatchObject({ redeemed: 0 });
    expect(await db.count(`SELECT 1 FROM events WHERE type = 'redemption.rollback.succeeded' AND data->'voucher'->>'id' = $1`, [card.id])).toBe(3);
  }, 60_000);

  it('one Idempotency-Key sent 20 times at once, to redeem and then to roll back: one redemption, one rollback, one set of events, every 200 the same answer', async () => {
    const { campaign } = await pointsCampaign(stack.app, stack.a, [{ points: 10 }]);
    const code = await enrol(stack.app, stack.a, campaign, unique('key-race'));
    const card = await db.card(code);
    const mug = await reward({ name: 'Keyed mug', parameters: { product: { id: 'prod_keyed' } } });
    await assign(campaign.id, mug, 10);
    expect((await api().post(`/v1/loyalties/members/${code}/balance`).set(headers()).send({ points: 100 })).status).toBe(200);
    const race = async (send: () => Promise<{ status: number; body: unknown }>) => {
      const answers = new Answers();
      const bodies: unknown[] = [];
      await inParallel(
        Array.from({ length: 20 }, () => async () => {
          const res = await send();
          if (res.status === 200) bodies.push(res.body);
          return answers.add(res);
        }),
        20,
      );
      expect(answers.report(['200', '409 idempotency_request_in_progress']).unexpected).toEqual({});
      expect(bodies.length).toBeGreaterThanOrEqual(1);
      for (const body of bodies) expect(body).toStrictEqual(bodies[0]);
      return bodies[0] as { id: string };
    };
    const key = unique('redeem-key');
    const made = await race(() => redeem(code, { reward: { id: mug } }).set('Idempotency-Key', key));
    expect(await redemptionRows(card.id)).toBe(1);
    expect((await db.card(code)).balance).toBe(90);
    const rollbackKey = unique('rollback-key');
    await race(() => api().post(`/v1/redemptions/${made.id}/rollback`).set(headers()).set('Idempotency-Key', rollbackKey).send({}));
    expect(await db.count(`SELECT 1 FROM redemptions WHERE redemption_id = $1`, [made.id])).toBe(1);
    expect((await db.card(code)).balance).toBe(100);
    expect(await db.count(`SELECT 1 FROM events WHERE type IN ('redemption.succeeded', 'redemption.rollback.succeeded') AND data->'voucher'->>'id' = $1`, [card.id])).toBe(2);
  }, 60_000);

  it('redemptions and their rollbacks race paid orders, removals by hand, and two workers activating pending points and expiring buckets on one card', async () => {
    await Promise.all([startWorkerProcess(env, workers), startWorkerProcess(env, workers)]);
    // An accrual rule (10 a paid order) and a pending one (5, activated a "day" later by the workers).
    const { campaign } = await pointsCampaign(stack.app, stack.a, [{ points: 10 }, { points: 5, days: 1 }]);
    const customer = unique('busy-card');
    const code = await enrol(stack.app, stack.a, campaign, customer);
    const card = await db.card(code);
    // Buckets of several days: 200 points expiring tomorrow, 200 in a year, 200 never.
    const day = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
    for (const body of [{ points: 200, expiration_type: 'CUSTOM_DATE', expiration_date: day(1) }, { points: 200, expiration_type: 'CUSTOM_DATE', expiration_date: day(365) }, { points: 200, expiration_type: 'NON_EXPIRING' }]) {
      expect((await api().post(`/v1/loyalties/members/${code}/balance`).set(headers()).send(body)).status).toBe(200);
    }
    const mug = await reward({ name: 'Busy mug', parameters: { product: { id: 'prod_busy' } } });
    await assign(campaign.id, mug, 40);
    // And 3,000 points in 30 buckets already due: the workers' expiry races the redemptions that drain them first.
    // More than the redemptions and removals below can take (at most 825), so some are always left to expire,
    // however fast the redemptions come (they take the soonest-expiring points first).
    await addDueBuckets(db, card.id, 30, 1, 100);
    const answers = new Answers();
    const redeemed: string[] = [];
    await inParallel(
      [
        ...Array.from({ length: 15 }, () => async () => {
          const res = await redeem(code, { reward: { id: mug } });
          if (res.status === 200) redeemed.push(res.body.id as string);
          return answers.add(res);
        }),
        ...Array.from({ length: 10 }, (_, i) => async () => answers.add(await payOrder(stack.app, stack.a, { source_id: unique(`busy-order-${i}`), customer }))),
        ...Array.from({ length: 10 }, () => async () => answers.add(await api().post(`/v1/loyalties/members/${code}/balance`).set(headers()).send({ points: -15 }))),
      ],
      12,
    );
    expect(answers.report(['200', EXCEEDED]).unexpected).toEqual({});
    // Half of the redemptions rolled back while more orders and removals go on.
    const more = new Answers();
    await inParallel(
      [
        ...redeemed.slice(0, Math.ceil(redeemed.length / 2)).map((id) => async () => more.add(await api().post(`/v1/redemptions/${id}/rollback`).set(headers()).send({}))),
        ...Array.from({ length: 5 }, (_, i) => async () => more.add(await payOrder(stack.app, stack.a, { source_id: unique(`busy-order-late-${i}`), customer }))),
        ...Array.from({ length: 5 }, () => async () => more.add(await api().post(`/v1/loyalties/members/${code}/balance`).set(headers()).send({ points: -15 }))),
      ],
      12,
    );
    // A rollback whose points came from a bucket that has expired since is refused (the points are not revived).
    expect(more.report(['200', EXCEEDED, '400 invalid_redemption']).unexpected).toEqual({});
    const rolledBack = more.histogram['200'] - 10 + (more.histogram[EXCEEDED] ?? 0);
    expect(redeemed.length).toBeGreaterThan(0);
    // The workers did their part on the card: pending points activated, due buckets expired.
    await waitFor(async () => ((await db.count(`SELECT 1 FROM voucher_transactions WHERE voucher_id = $1 AND type = 'PENDING_POINTS_ACTIVATION'`, [card.id])) > 0 ? true : undefined), { timeoutMs: 15_000 });
    await waitFor(async () => ((await db.count(`SELECT 1 FROM voucher_transactions WHERE voucher_id = $1 AND type = 'POINTS_EXPIRATION'`, [card.id])) > 0 ? true : undefined), { timeoutMs: 15_000 });
    // Every entry activated before the counts below: they are read statement by statement, and an activation
    // between two of them would count an event without its entry.
    await waitFor(async () => ((await db.count(`SELECT 1 FROM loyalty_pending_points WHERE project_id = $1 AND status = 'PENDING'`, [stack.a.project.id])) === 0 ? true : undefined), { timeoutMs: 30_000 });
    expect(await redemptionRows(card.id)).toBe(redeemed.length);
    expect(await db.count(`SELECT 1 FROM redemptions WHERE voucher_id = $1 AND status = 'ROLLED_BACK'`, [card.id])).toBe(rolledBack);
    expect(await db.count(`SELECT 1 FROM redemptions WHERE voucher_id = $1 AND object = 'redemption_rollback'`, [card.id])).toBe(rolledBack);
    expect(await projectViolations(db, stack.a.project.id)).toEqual([]);
    expect(await db.brokenCards()).toEqual([]);
  }, 90_000);

  it('COIN redemptions of orders paid at the same moment (8 orders, each sent PAID 3 times and redeemed once, then rolled back while sent PAID again): one earning per order and rule, on the amount the order had then', async () => {
    // 1 point per 1.00 of the order's total and 5 a paid order; COIN: 1 point = 1.00.
    const { campaign, ruleIds } = await pointsCampaign(stack.app, stack.a, [{ every: 100, points: 1 }, { points: 5 }]);
    const customer = unique('coin-race');
    const code = await enrol(stack.app, stack.a, campaign, customer);
    expect((await api().post(`/v1/loyalties/members/${code}/balance`).set(headers()).send({ points: 1000 })).status).toBe(200);
    const coin = await reward({ name: 'Coin race', parameters: { coin: { exchange_ratio: 1, points_ratio: 1 } } });
    expect((await api().post(`/v1/rewards/${coin}/assignments`).set(headers()).send({ campaign: campaign.id })).status).toBe(200);
    const orders = Array.from({ length: 8 }, (_, i) => unique(`coin-race-order-${i}`));
    const pay = (sourceId: string) => payOrder(stack.app, stack.a, { source_id: sourceId, customer, amount: 10000 });
    const answers = new Answers();
    const redemptions: string[] = [];
    const tasks = orders.flatMap((sourceId) => [
      ...Array.from({ length: 3 }, () => async () => answers.add(await pay(sourceId))),
      async () => {
        const res = await redeem(code, { reward: { id: coin, points: 20 }, order: { source_id: sourceId, amount: 10000 } });
        if (res.status === 200) redemptions.push(res.body.id as string);
        return answers.add(res);
      },
    ]);
    // Interleaved: the redemption of an order among its payments (a fixed shuffle).
    await inParallel(tasks.map((_, i) => tasks[(i * 13) % tasks.length]), 16);
    expect(answers.report(['200'])).toEqual({ histogram: { '200': 32 }, unexpected: {} });
    const rows = () =>
      db.query<{ source_id: string; status: string; discount_amount: string; earnings: number; proportional: number | null; accruals: number }>(
        `SELECT o.source_id, o.status, o.discount_amount::text AS discount_amount,
                (SELECT count(*)::int FROM order_earnings e WHERE e.order_id = o.id) AS earnings,
                (SELECT e.points FROM order_earnings e WHERE e.order_id = o.id AND e.earning_rule_id = $2) AS proportional,
                (SELECT count(*)::int FROM voucher_transactions t WHERE t.order_id = o.id AND t.type = 'POINTS_ACCRUAL') AS accruals
           FROM orders o WHERE o.project_id = $1 AND o.source_id = ANY($3) ORDER BY o.source_id`,
        [stack.a.project.id, ruleIds[0], orders],
      );
    const after = await rows();
    expect(after).toHaveLength(8);
    for (const order of after) {
      expect(order).toMatchObject({ status: 'PAID', discount_amount: '2000', earnings: 2, accruals: 2 });
      // Paid before the redemption: on 100.00; after it: on 80.00. Never twice, never on anything else.
      expect([100, 80]).toContain(order.proportional);
    }
    const earned = after.reduce((sum, o) => sum + (o.proportional ?? 0) + 5, 0);
    expect((await db.card(code)).balance).toBe(1000 - 8 * 20 + earned);

    // Rolled back while the orders are sent PAID again: the discounts go back, nothing more is earned.
    const more = new Answers();
    await inParallel([...redemptions.map((id) => async () => more.add(await api().post(`/v1/redemptions/${id}/rollback`).set(headers()).send({}))), ...orders.map((sourceId) => async () => more.add(await pay(sourceId)))], 16);
    expect(more.report(['200'])).toEqual({ histogram: { '200': 16 }, unexpected: {} });
    const rolledBack = await rows();
    for (const [i, order] of rolledBack.entries()) expect(order).toEqual({ ...after[i], discount_amount: '0' });
    expect((await db.card(code)).balance).toBe(1000 + earned);
    expect(await db.brokenCards()).toEqual([]);
  }, 90_000);
});
