import type { ChildProcess } from 'node:child_process';
import { useStack } from '../support/fixture.js';
import { startWorkerProcess, waitFor } from '../support/harness.js';
import { enrol, payOrder, pointsCampaign, unique } from '../support/points.js';

const DAY_MS = 2_000;
const SWEEP_MS = 1_000;

/**
 * Real worker processes (`node dist/worker.js`) on the run's database and queues: two of them racing for the
 * same due entries credit each once, and a worker killed with SIGKILL mid-activation and started again still
 * activates every due entry, once.
 */
describe('pending points with worker processes', () => {
  const env = { PENDING_POINTS_DAY_MS: String(DAY_MS), PENDING_POINTS_SWEEP_MS: String(SWEEP_MS), LOG_LEVEL: 'info' };
  const workers = new Set<ChildProcess>();
  const stack = useStack({
    config: { PENDING_POINTS_DAY_MS: String(DAY_MS) },
    projects: ['Worker processes project'],
    pointsDb: true,
    beforeClose: async ({ db }) => {
      for (const worker of workers) worker.kill('SIGKILL');
      expect(await db.brokenCards()).toEqual([]);
    },
  });
  const { db } = stack;

  const startWorker = () => startWorkerProcess(env, workers);

  /** `customers` members each with `orders` paid orders under one pending rule (one "day"); the order ids. */
  async function dueSoon(customers: number, orders: number, points: number): Promise<string[]> {
    const { campaign } = await pointsCampaign(stack.app, stack.a, [{ points, days: 1 }]);
    const ids: string[] = [];
    await Promise.all(
      Array.from({ length: customers }, async () => {
        const customer = unique('worker-holder');
        await enrol(stack.app, stack.a, campaign, customer);
        for (let i = 0; i < orders; i += 1) ids.push((await payOrder(stack.app, stack.a, { source_id: unique('worker-order'), customer })).body.id as string);
      }),
    );
    return ids;
  }

  async function expectEachActivatedOnce(orderIds: string[], points: number): Promise<void> {
    const rows = await db.query<{ status: string; ledger: number; events: number }>(
      `SELECT p.status,
              (SELECT count(*)::int FROM voucher_transactions t WHERE t.pending_points_id = p.id) AS ledger,
              (SELECT count(*)::int FROM events e WHERE e.type = 'customer.voucher.loyalty_card.pending_points.activated' AND e.data->'pending_points'->>'id' = p.id) AS events
       FROM loyalty_pending_points p WHERE p.order_id = ANY($1::text[])`,
      [orderIds],
    );
    expect(rows).toHaveLength(orderIds.length);
    expect(rows.filter((row) => row.status !== 'ACTIVATED' || row.ledger !== 1 || row.events !== 1)).toEqual([]);
    const [credited] = await db.query<{ sum: number }>(
      `SELECT sum(v.balance)::float8 AS sum FROM vouchers v WHERE v.id IN (SELECT voucher_id FROM loyalty_pending_points WHERE order_id = ANY($1::text[]))`,
      [orderIds],
    );
    expect(credited.sum).toBe(orderIds.length * points);
  }

  const allActivated = (orderIds: string[]) => async () => {
    const [{ n }] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM loyalty_pending_points WHERE order_id = ANY($1::text[]) AND status = 'PENDING'`, [orderIds]);
    return n === 0 ? true : undefined;
  };

  it('two worker processes activate 300 entries coming due together, each exactly once', async () => {
    const [a, b] = await Promise.all([startWorker(), startWorker()]);
    const orders = await dueSoon(30, 10, 3);
    await waitFor(allActivated(orders), { timeoutMs: DAY_MS + 20_000, intervalMs: 200 });
    await expectEachActivatedOnce(orders, 3);
    for (const worker of [a, b]) {
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.kill('SIGTERM');
      await exited;
    }
    // Two worker starts and 300 orders took 49 s of a loaded full run (2026-11-29): bounded, with room.
  }, 120_000);

  it('a worker killed with SIGKILL while activating, then started again, still activates every due entry once', async () => {
    const first = await startWorker();
    const orders = await dueSoon(20, 20, 5);
    // Kill it the moment the first entries are activated: jobs and a batch are in flight.
    await waitFor(
      async () => {
        const [{ n }] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM loyalty_pending_points WHERE order_id = ANY($1::text[]) AND status = 'ACTIVATED'`, [orders]);
        return n > 0 ? true : undefined;
      },
      { timeoutMs: DAY_MS + 15_000, intervalMs: 5 },
    );
    const killed = new Promise((resolve) => first.once('exit', resolve));
    first.kill('SIGKILL');
    await killed;
    await startWorker();
    await waitFor(allActivated(orders), { timeoutMs: 30_000, intervalMs: 200 });
    await expectEachActivatedOnce(orders, 5);
  }, 150_000);
});
