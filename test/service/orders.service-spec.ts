import { CreateEarningRuleDto } from '../../src/points/earning/dto/earning-rule.dto.js';
import { EarningRulesService } from '../../src/points/earning/earning-rules.service.js';
import { PointsModule } from '../../src/points/points.module.js';
import { unique } from '../support/points.js';
import { builders } from '../support/builders.js';
import { body, useServices } from '../support/services.js';

describe('OrdersService on PostgreSQL (no worker, no HTTP)', () => {
  const services = useServices({ imports: [PointsModule] });
  const { db } = services;
  const build = builders(services);

  it('a paid order earns once under each rule: points to the card, a pending entry; the same order sent again earns nothing more', async () => {
    const holder = await build.member({ rules: [{ points: 10 }, { points: 25, days: 30 }] }, unique('order-holder'));
    const { project } = holder;
    const code = holder.card.code;
    const sourceId = unique('order');

    const first = await build.paidOrder(holder, { sourceId });
    expect(first).toMatchObject({ source_id: sourceId, status: 'PAID', amount: 1000 });
    const earned = async () => ({
      card: await db.card(code),
      accruals: await db.count("SELECT 1 FROM voucher_transactions WHERE order_id = $1 AND type = 'POINTS_ACCRUAL'", [first.id]),
      entries: (await db.entries({ orderId: first.id })).map((e) => ({ status: e.status, points: e.points })),
      earnings: await db.count('SELECT 1 FROM order_earnings WHERE order_id = $1', [first.id]),
    });
    const once = { card: expect.objectContaining({ balance: 10, points: 10, pending_points: 25 }), accruals: 1, entries: [{ status: 'PENDING', points: 25 }], earnings: 2 };
    expect(await earned()).toEqual(once);

    const again = await build.paidOrder(holder, { sourceId });
    expect(again.id).toBe(first.id);
    expect(await earned()).toEqual(once);
    expect(await db.count('SELECT 1 FROM orders WHERE project_id = $1 AND source_id = $2', [project.id, sourceId])).toBe(1);
  });

  it("an order's added event shows the card with the order's accruals and their next expiration, and names a rule without a banner by an empty one", async () => {
    const program = await build.program();
    const { project, campaignId } = program;
    await services.get(EarningRulesService).create(project, campaignId, [
      await body(CreateEarningRuleDto, { loyalty: { type: 'FIXED', points: 10 }, expiration_rules: { period_type: 'MONTH', period_value: 12 } }),
      await body(CreateEarningRuleDto, { loyalty: { type: 'FIXED', points: 25 }, pending_points: { period_type: 'DAY', period_value: 30 } }),
    ]);
    const holder = await build.member(program, unique('order-event-holder'));
    const cards = [holder.card];
    const order = await build.paidOrder(holder);

    const [bucket] = await db.query<{ day: string }>(`SELECT to_char(expires_at, 'YYYY-MM-DD') AS day FROM loyalty_points_buckets WHERE voucher_id = $1`, [cards[0].id]);
    const [event] = await db.query<{ data: { voucher: { loyalty_card: object }; pending_points: { details: { earning_rule: { source: object } } } } }>(
      "SELECT data FROM events WHERE type = 'customer.voucher.loyalty_card.pending_points.added' AND data->'order'->>'id' = $1",
      [order.id],
    );
    expect(event.data.voucher.loyalty_card).toEqual({ points: 10, balance: 10, next_expiration_date: bucket.day, next_expiration_points: 10, pending_points: 25 });
    expect(event.data.pending_points.details.earning_rule.source).toEqual({ banner: '' });
    const [accrual] = await db.query<{ source: object }>("SELECT details->'earning_rule'->'source' AS source FROM voucher_transactions WHERE order_id = $1 AND type = 'POINTS_ACCRUAL'", [order.id]);
    expect(accrual.source).toEqual({ banner: '' });
  });
});
