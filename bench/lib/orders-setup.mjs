// What the paid orders benchmarks (bench/orders.mjs, bench/orders-large.mjs) set up through the API and check
// afterwards: earning rules, members, order bodies, and the data the orders wrote.
import { call } from './api.mjs';

export const accrual = (points) => ({ event: 'order.paid', loyalty: { type: 'FIXED', points } });
export const pending = (points) => ({ event: 'order.paid', loyalty: { type: 'FIXED', points }, pending_points: { period_type: 'DAY', period_value: 14 } });

/** Enrols each customer (by source id) in each program, `parallel` requests at a time. */
export async function enrolAll(api, headers, customers, programs, parallel = 8) {
  const jobs = customers.flatMap((customer) => programs.map((program) => [customer, program]));
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < jobs.length) {
        const [customer, program] = jobs[next++];
        await call(api.base, headers, 'POST', `/v2/loyalties/programs/${program}/members`, { customer_identification: { type: 'customer_source_id', customer_source_id: customer } });
      }
    }),
  );
}

/** A body maker for a part: each call a new order source id, the customer round-robin over `customers`. */
export function orders(tag, customers) {
  let n = 0;
  return () => {
    n += 1;
    return JSON.stringify({ source_id: `${tag}-${n}`, status: 'PAID', amount: 1000, customer: { source_id: customers[n % customers.length] } });
  };
}

/** Checks of the data a part wrote: earnings per order, and the cards' balances against ledger and entries. */
export async function checkData(db, tag, earningsPerOrder) {
  const [row] = (
    await db.query(
      `SELECT count(DISTINCT o.id)::int AS orders, count(e.*)::int AS earnings FROM orders o LEFT JOIN order_earnings e ON e.order_id = o.id WHERE o.source_id LIKE $1`,
      [`${tag}-%`],
    )
  ).rows;
  const broken = (
    await db.query(
      `SELECT count(*)::int AS n FROM vouchers v
       LEFT JOIN (SELECT voucher_id, sum(points)::int AS sum FROM voucher_transactions GROUP BY voucher_id) t ON t.voucher_id = v.id
       LEFT JOIN (SELECT voucher_id, sum(points)::int AS sum FROM loyalty_pending_points WHERE status = 'PENDING' GROUP BY voucher_id) p ON p.voucher_id = v.id
       WHERE v.balance <> coalesce(t.sum, 0) OR v.pending_points <> coalesce(p.sum, 0)`,
    )
  ).rows[0].n;
  return { orders: row.orders, earnings: row.earnings, earnings_expected: row.orders * earningsPerOrder, cards_off_their_ledger: broken };
}
