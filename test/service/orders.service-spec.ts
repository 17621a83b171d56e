import { PointsModule } from '../../src/points/points.module.js';
import { unique } from '../support/points.js';
import { enrolCustomer, payOrder, pointsProgram } from '../support/service-points.js';
import { useServices } from '../support/services.js';

describe('OrdersService on PostgreSQL (no worker, no HTTP)', () => {
  const services = useServices({ imports: [PointsModule] });
  const { db } = services;

  it('a paid order earns once under each rule: points to the card, a pending entry; the same order sent again earns nothing more', async () => {
    const project = await services.project();
    const { programId } = await pointsProgram(services, project, [{ points: 10 }, { points: 25, days: 30 }]);
    const customer = unique('order-holder');
    const { cards } = await enrolCustomer(services, project, programId, customer);
    const code = cards[0].code;
    const sourceId = unique('order');

    const first = await payOrder(services, project, { source_id: sourceId, customer });
    expect(first).toMatchObject({ source_id: sourceId, status: 'PAID', amount: 1000 });
    const earned = async () => ({
      card: await db.card(code),
      accruals: await db.count("SELECT 1 FROM voucher_transactions WHERE order_id = $1 AND type = 'POINTS_ACCRUAL'", [first.id]),
      entries: (await db.entries({ orderId: first.id })).map((e) => ({ status: e.status, points: e.points })),
      earnings: await db.count('SELECT 1 FROM order_earnings WHERE order_id = $1', [first.id]),
    });
    const once = { card: expect.objectContaining({ balance: 10, points: 10, pending_points: 25 }), accruals: 1, entries: [{ status: 'PENDING', points: 25 }], earnings: 2 };
    expect(await earned()).toEqual(once);

    const again = await payOrder(services, project, { source_id: sourceId, customer });
    expect(again.id).toBe(first.id);
    expect(await earned()).toEqual(once);
    expect(await db.count('SELECT 1 FROM orders WHERE project_id = $1 AND source_id = $2', [project.id, sourceId])).toBe(1);
  });
});
