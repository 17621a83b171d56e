import type { ProjectContext } from '../../src/auth/auth.service.js';
import type { Collector } from '../../src/common/batching/collector.js';
import { CreateOrderDto } from '../../src/points/orders/dto/order.dto.js';
import { OrdersService } from '../../src/points/orders/orders.service.js';
import { PointsModule } from '../../src/points/points.module.js';
import { builders } from '../support/builders.js';
import { waitFor } from '../support/harness.js';
import { PointsDb, projectViolations, unique } from '../support/points.js';
import { body, useServices } from '../support/services.js';

/**
 * Paid orders by the batch (issue 40): concurrent paid orders of a project share one transaction. The test holds
 * the card's lock from a connection of its own, so the first orders' transactions wait on it and the others queue
 * in the service's collector (a bounded poll on its count, not a bet on timing); then it lets go and checks what
 * the batches wrote.
 */
describe('paid orders in batches (OrdersService on PostgreSQL)', () => {
  const services = useServices({ imports: [PointsModule] });
  const { db } = services;
  const build = builders(services);
  const orders = () => services.get(OrdersService);
  // The service's collector of paid orders, read for how many orders wait (a private field, read by the test only).
  const collector = () => (orders() as unknown as { paid: Collector<unknown, unknown> }).paid;

  const pay = async (project: ProjectContext, order: { source_id: string; customer: string; metadata?: object }) =>
    orders().create(project, await body(CreateOrderDto, { status: 'PAID', amount: 1000, ...order, customer: { source_id: order.customer } }));

  /** Runs `send` with the card locked elsewhere until `queued` orders wait in the collector, then releases the card; the outcomes. */
  async function behindCardLock<T>(cardId: string, queued: number, send: () => Promise<T>[]): Promise<PromiseSettledResult<T>[]> {
    const holder = new PointsDb();
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM vouchers WHERE id = $1 FOR NO KEY UPDATE', [cardId]);
      const settled = Promise.allSettled(send());
      await waitFor(async () => (collector().waiting >= queued ? true : undefined), { timeoutMs: 30_000 });
      await holder.query('COMMIT');
      return await settled;
    } finally {
      await holder.end();
    }
  }

  /** How many transactions wrote the project's orders (each row's xmin is the transaction that wrote it last). */
  const transactions = async (projectId: string) => (await db.query<{ n: number }>('SELECT count(DISTINCT xmin::text)::int AS n FROM orders WHERE project_id = $1', [projectId]))[0].n;

  it('20 paid orders on one card: the ones that queued share a transaction, each earns once, the card equals its ledger, each event shows its own pending total', async () => {
    const holder = await build.member({ rules: [{ points: 10 }, { points: 5, days: 30 }] }, unique('batch-holder'));
    const { project } = holder;
    const sourceIds = Array.from({ length: 20 }, () => unique('batch-order'));

    // Two batches start at once (two in flight per project) and wait on the card; the other 18 orders queue.
    const outcomes = await behindCardLock(holder.card.id, 18, () => sourceIds.map((source_id) => pay(project, { source_id, customer: holder.customer })));
    expect(outcomes.map((o) => o.status)).toEqual(Array(20).fill('fulfilled'));
    expect(await transactions(project.id)).toBe(3);

    expect(await db.card(holder.card.code)).toMatchObject({ balance: 200, points: 200, pending_points: 100 });
    expect(await db.count('SELECT 1 FROM order_earnings WHERE project_id = $1', [project.id])).toBe(40);
    expect(await projectViolations(db, project.id)).toEqual([]);
    // One added event per entry, each naming its own order, its card's pending total right after its entry.
    const events = await db.query<{ order_id: string; total: number; change: number }>(
      `SELECT data->'order'->>'source_id' AS order_id, (data->'voucher_pending_points_balance'->>'total')::int AS total, (data->'voucher_pending_points_balance'->>'points')::int AS change
       FROM events WHERE project_id = $1 AND type = 'customer.voucher.loyalty_card.pending_points.added' ORDER BY total`,
      [project.id],
    );
    expect(events.map((e) => e.total)).toEqual(Array.from({ length: 20 }, (_, i) => 5 * (i + 1)));
    expect(events.map((e) => e.order_id).sort()).toEqual([...sourceIds].sort());
    // The ledger rows show the balance right after each of them.
    const balances = await db.query<{ balance: number }>(
      "SELECT (details->'balance'->>'balance')::int AS balance FROM voucher_transactions WHERE voucher_id = $1 AND type = 'POINTS_ACCRUAL' ORDER BY 1",
      [holder.card.id],
    );
    expect(balances.map((b) => b.balance)).toEqual(Array.from({ length: 20 }, (_, i) => 10 * (i + 1)));
  });

  it('one bad order in a batch fails alone: its neighbours are saved and earn, nothing of it is written', async () => {
    const holder = await build.member({ rules: [{ points: 10 }] }, unique('batch-bad'));
    const { project } = holder;
    const good = Array.from({ length: 6 }, () => unique('good-order'));
    const bad = unique('bad-order');
    // PostgreSQL refuses the NUL character in jsonb (the API's guard refuses it before; the service is called directly here).
    const outcomes = await behindCardLock(holder.card.id, 5, () => [
      ...good.slice(0, 2).map((source_id) => pay(project, { source_id, customer: holder.customer, metadata: { note: 'ok' } })),
      pay(project, { source_id: bad, customer: holder.customer, metadata: { note: 'x\u0000' } }),
      ...good.slice(2).map((source_id) => pay(project, { source_id, customer: holder.customer, metadata: { note: 'ok' } })),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(await db.count('SELECT 1 FROM orders WHERE project_id = $1 AND source_id = $2', [project.id, bad])).toBe(0);
    expect(await db.count('SELECT 1 FROM orders WHERE project_id = $1 AND source_id = ANY($2)', [project.id, good])).toBe(6);
    expect(await db.card(holder.card.code)).toMatchObject({ balance: 60, points: 60 });
    expect(await projectViolations(db, project.id)).toEqual([]);
  });

  it('the same order sent 10 times at once: never twice in a batch, one order, its rules earn once', async () => {
    const holder = await build.member({ rules: [{ points: 10 }, { points: 5, days: 30 }] }, unique('batch-same'));
    const { project } = holder;
    const sourceId = unique('same-order');
    const outcomes = await behindCardLock(holder.card.id, 8, () => Array.from({ length: 10 }, () => pay(project, { source_id: sourceId, customer: holder.customer })));
    expect(outcomes.map((o) => o.status)).toEqual(Array(10).fill('fulfilled'));
    expect(new Set(outcomes.map((o) => (o.status === 'fulfilled' ? o.value.id : null))).size).toBe(1);
    expect(await db.count('SELECT 1 FROM order_earnings WHERE project_id = $1', [project.id])).toBe(2);
    expect(await db.card(holder.card.code)).toMatchObject({ balance: 10, points: 10, pending_points: 5 });
    expect(await projectViolations(db, project.id)).toEqual([]);
  });
});
