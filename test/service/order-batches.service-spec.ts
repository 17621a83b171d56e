import type { ProjectContext } from '../../src/auth/auth.service.js';
import type { Collector } from '../../src/common/batching/collector.js';
import { Metrics } from '../../src/metrics/metrics.js';
import { CreateOrderDto } from '../../src/points/orders/dto/order.dto.js';
import { OrdersService } from '../../src/points/orders/orders.service.js';
import { PointsModule } from '../../src/points/points.module.js';
import { builders } from '../support/builders.js';
import { waitFor } from '../support/harness.js';
import { histogramTotals } from '../support/prometheus.js';
import { PointsDb, projectViolations, unique } from '../support/points.js';
import { body, useServices } from '../support/services.js';

/**
 * Paid orders by the batch (issue 40): concurrent paid orders of a project share one transaction. The test holds
 * the card's lock from a connection of its own, so two first orders' transactions wait on it and the others queue
 * in the service's collector (bounded polls on the lock waits and the collector's count, not bets on timing); then it
 * lets go and checks what the batches wrote.
 */
describe('paid orders in batches (OrdersService on PostgreSQL)', () => {
  const services = useServices({ imports: [PointsModule] });
  const { db } = services;
  const build = builders(services);
  const orders = () => services.get(OrdersService);
  // The service's collector of paid orders, read for how many orders wait (a private field, read by the test only).
  const collector = () => (orders() as unknown as { paid: Collector<unknown, unknown> }).paid;

  const pay = async (project: ProjectContext, order: { source_id: string; customer: string | object; metadata?: object }) =>
    orders().create(project, await body(CreateOrderDto, { status: 'PAID', amount: 1000, ...order, customer: typeof order.customer === 'string' ? { source_id: order.customer } : order.customer }));

  /**
   * With the member's card locked elsewhere: two orders of the member (the two batches a project may run at once)
   * until both wait for the card, then `send`'s orders until all of them wait in the collector; then the card is
   * released. The outcomes of `send`'s orders (the two first ones must succeed). `fields`: what the first two send
   * besides status, amount and customer (a batch's orders send the same fields).
   */
  async function behindCardLock<T>(member: { project: ProjectContext; customer: string; card: { id: string } }, send: () => Promise<T>[], fields: object = {}): Promise<PromiseSettledResult<T>[]> {
    const holder = new PointsDb();
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM vouchers WHERE id = $1 FOR NO KEY UPDATE', [member.card.id]);
      const first = Promise.all([1, 2].map(() => pay(member.project, { ...fields, source_id: unique('first'), customer: member.customer })));
      const waitingForCard = async () => (await db.count("SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")) >= 2;
      await waitFor(async () => ((await waitingForCard()) ? true : undefined), { timeoutMs: 30_000 });
      const sent = send();
      const settled = Promise.allSettled(sent);
      await waitFor(async () => (collector().waiting >= sent.length ? true : undefined), { timeoutMs: 30_000 });
      await holder.query('COMMIT');
      await first;
      return await settled;
    } finally {
      await holder.end();
    }
  }

  /** The batch histogram's observations and their sum (loyalty_paid_order_batch_size). */
  const batchHistogram = () => histogramTotals(services.get(Metrics).paidOrderBatches, 'loyalty_paid_order_batch_size');

  /** How many transactions wrote the project's orders (each row's xmin is the transaction that wrote it last). */
  const transactions = async (projectId: string) => (await db.query<{ n: number }>('SELECT count(DISTINCT xmin::text)::int AS n FROM orders WHERE project_id = $1', [projectId]))[0].n;

  it('20 paid orders on one card at once: one transaction, each earns once, the card equals its ledger, each event shows its own pending total', async () => {
    const holder = await build.member({ rules: [{ points: 10 }, { points: 5, days: 30 }] }, unique('batch-holder'));
    const { project } = holder;
    const sourceIds = Array.from({ length: 20 }, () => unique('batch-order'));
    const histogram = await batchHistogram();

    const outcomes = await behindCardLock(holder, () => sourceIds.map((source_id) => pay(project, { source_id, customer: holder.customer })));
    expect(outcomes.map((o) => o.status)).toEqual(Array(20).fill('fulfilled'));
    // The two first orders' transactions, and one for the 20; the metric saw the same.
    expect(await transactions(project.id)).toBe(3);
    expect(await batchHistogram()).toEqual({ count: histogram.count + 3, sum: histogram.sum + 22 });

    expect(await db.card(holder.card.code)).toMatchObject({ balance: 220, points: 220, pending_points: 110 });
    expect(await db.count('SELECT 1 FROM order_earnings WHERE project_id = $1', [project.id])).toBe(44);
    expect(await projectViolations(db, project.id)).toEqual([]);
    // One added event per entry, each naming its own order, its card's pending total right after its entry.
    const events = await db.query<{ order_id: string; total: number }>(
      `SELECT data->'order'->>'source_id' AS order_id, (data->'voucher_pending_points_balance'->>'total')::int AS total
       FROM events WHERE project_id = $1 AND type = 'customer.voucher.loyalty_card.pending_points.added' ORDER BY total`,
      [project.id],
    );
    expect(events.map((e) => e.total)).toEqual(Array.from({ length: 22 }, (_, i) => 5 * (i + 1)));
    expect(events.map((e) => e.order_id).filter((id) => sourceIds.includes(id)).sort()).toEqual([...sourceIds].sort());
    // The ledger rows show the balance right after each of them.
    const balances = await db.query<{ balance: number }>(
      "SELECT (details->'balance'->>'balance')::int AS balance FROM voucher_transactions WHERE voucher_id = $1 AND type = 'POINTS_ACCRUAL' ORDER BY 1",
      [holder.card.id],
    );
    expect(balances.map((b) => b.balance)).toEqual(Array.from({ length: 22 }, (_, i) => 10 * (i + 1)));
  });

  it('one bad order in a batch fails alone: its neighbours are saved and earn, nothing of it is written', async () => {
    const holder = await build.member({ rules: [{ points: 10 }] }, unique('batch-bad'));
    const { project } = holder;
    const good = Array.from({ length: 6 }, () => unique('good-order'));
    const bad = unique('bad-order');
    // PostgreSQL refuses the NUL character in jsonb (the API's guard refuses it before; the service is called directly here).
    const outcomes = await behindCardLock(holder, () => [
      ...good.slice(0, 2).map((source_id) => pay(project, { source_id, customer: holder.customer, metadata: { note: 'ok' } })),
      pay(project, { source_id: bad, customer: holder.customer, metadata: { note: 'x\u0000' } }),
      ...good.slice(2).map((source_id) => pay(project, { source_id, customer: holder.customer, metadata: { note: 'ok' } })),
    ], { metadata: { note: 'ok' } });
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(await db.count('SELECT 1 FROM orders WHERE project_id = $1 AND source_id = $2', [project.id, bad])).toBe(0);
    expect(await db.count('SELECT 1 FROM orders WHERE project_id = $1 AND source_id = ANY($2)', [project.id, good])).toBe(6);
    expect(await db.card(holder.card.code)).toMatchObject({ balance: 80, points: 80 });
    expect(await projectViolations(db, project.id)).toEqual([]);
  });

  it('customers of a batch: by source id alone (made when new) together, with fields or by id one by one; an unknown id fails only its order', async () => {
    const holder = await build.member({ rules: [{ points: 10 }] }, unique('batch-customers'));
    const { project } = holder;
    const newcomer = unique('batch-newcomer');
    const [{ id: holderId }] = await db.query<{ id: string }>('SELECT id FROM customers WHERE project_id = $1 AND source_id = $2', [project.id, holder.customer]);
    const sent = [
      { source_id: unique('o'), customer: holder.customer },
      { source_id: unique('o'), customer: newcomer },
      { source_id: unique('o'), customer: { source_id: holder.customer, name: 'Named in the batch' } },
      { source_id: unique('o'), customer: { id: holderId } },
      { source_id: unique('o'), customer: { id: 'cust_unknown000000000000000' } },
    ];
    const outcomes = await behindCardLock(holder, () => sent.map((order) => pay(project, order)));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected']);
    expect((outcomes[4] as PromiseRejectedResult).reason).toMatchObject({ status: 404 });
    // Four orders besides the two first; the holder's three earned on its card, the newcomer (no member) earned nothing but exists now.
    expect(await db.count('SELECT 1 FROM orders WHERE project_id = $1', [project.id])).toBe(6);
    expect(await db.card(holder.card.code)).toMatchObject({ balance: 50, points: 50 });
    const customers = await db.query<{ source_id: string; name: string | null }>('SELECT source_id, name FROM customers WHERE project_id = $1 ORDER BY source_id', [project.id]);
    expect(customers).toEqual(expect.arrayContaining([{ source_id: holder.customer, name: 'Named in the batch' }, { source_id: newcomer, name: null }]));
    expect(await projectViolations(db, project.id)).toEqual([]);
  });

  it('the same order sent 10 times at once: never twice in a batch, one order, its rules earn once', async () => {
    const holder = await build.member({ rules: [{ points: 10 }, { points: 5, days: 30 }] }, unique('batch-same'));
    const { project } = holder;
    const sourceId = unique('same-order');
    const outcomes = await behindCardLock(holder, () => Array.from({ length: 10 }, () => pay(project, { source_id: sourceId, customer: holder.customer })));
    expect(outcomes.map((o) => o.status)).toEqual(Array(10).fill('fulfilled'));
    expect(new Set(outcomes.map((o) => (o.status === 'fulfilled' ? o.value.id : null))).size).toBe(1);
    // The two first orders' rules and this order's: each earned once.
    expect(await db.count('SELECT 1 FROM order_earnings WHERE project_id = $1', [project.id])).toBe(6);
    expect(await db.count('SELECT 1 FROM order_earnings e JOIN orders o ON o.id = e.order_id WHERE o.source_id = $1', [sourceId])).toBe(2);
    expect(await db.card(holder.card.code)).toMatchObject({ balance: 30, points: 30, pending_points: 15 });
    expect(await projectViolations(db, project.id)).toEqual([]);
  });
});
