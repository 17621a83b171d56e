// What bench/redemptions.mjs makes through the API (members, points, rewards; campaigns come from api.mjs), the request maker of
// its parts, and its check of the data after a part.

import { call } from './api.mjs';

/** Runs `jobs` (functions) `parallel` at a time. */
export async function inParallel(jobs, parallel = 8) {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < jobs.length) await jobs[next++]();
    }),
  );
}

export const dayAhead = (days) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** Enrols `customers` in the program; their card codes, in order. */
export async function enrolAll(api, headers, programId, customers) {
  const codes = new Array(customers.length);
  await inParallel(
    customers.map((customer, i) => async () => {
      const member = await call(api.base, headers, 'POST', `/v2/loyalties/programs/${programId}/members`, { customer_identification: { type: 'customer_source_id', customer_source_id: customer } });
      codes[i] = member.cards[0].card.code;
    }),
  );
  return codes;
}

/** Adds `points` to each card in `dates.length` buckets, one per last day (null: never expiring). */
export async function fill(api, headers, campaignId, codes, points, dates) {
  await inParallel(
    codes.flatMap((code) =>
      dates.map((date) => () =>
        call(api.base, headers, 'POST', `/v1/loyalties/${campaignId}/members/${code}/balance`, { points, reason: 'bench', ...(date ? { expiration_type: 'CUSTOM_DATE', expiration_date: date } : { expiration_type: 'NON_EXPIRING' }) }),
      ),
    ),
  );
}

/** A MATERIAL reward with this stock (null: unlimited), offered in the campaign at `price` points. */
export async function reward(api, headers, name, campaignId, price, stock) {
  const made = await call(api.base, headers, 'POST', '/v1/rewards', { name, parameters: { product: { id: `prod_${name}` } }, ...(stock === null ? {} : { stock }) });
  await call(api.base, headers, 'POST', `/v1/rewards/${made.id}/assignments`, { campaign: campaignId, parameters: { loyalty: { points: price } } });
  return made.id;
}

/** A request maker for a part: each call a redemption of `rewardId` with the next card of `codes`, round-robin. */
export function redemptions(campaignId, codes, rewardId) {
  let n = 0;
  const body = JSON.stringify({ reward: { id: rewardId } });
  return () => {
    n += 1;
    return { path: `/v1/loyalties/${campaignId}/members/${codes[n % codes.length]}/redemption`, body };
  };
}

/**
 * The data after a part: cards whose balance is not Σ ledger or not Σ the points left in their ACTIVE buckets,
 * or below zero; the reward's stock, `redeemed` (as GET /v1/rewards/{id} answers it) and SUCCEEDED redemptions
 * (oversold: `redeemed` above the stock, or SUCCEEDED redemptions above it).
 */
export async function checkData(db, api, headers, campaignId, rewardId) {
  const [cards] = (
    await db.query(
      `SELECT count(*)::int AS cards,
              count(*) FILTER (WHERE v.balance <> coalesce(t.sum, 0) OR v.balance <> coalesce(b.sum, 0) OR v.balance < 0)::int AS off
       FROM vouchers v
       LEFT JOIN (SELECT voucher_id, sum(points)::bigint AS sum FROM voucher_transactions GROUP BY voucher_id) t ON t.voucher_id = v.id
       LEFT JOIN (SELECT voucher_id, sum(remaining)::bigint AS sum FROM loyalty_points_buckets WHERE status = 'ACTIVE' GROUP BY voucher_id) b ON b.voucher_id = v.id
       WHERE v.campaign_id = $1`,
      [campaignId],
    )
  ).rows;
  const [stock] = (
    await db.query(
      `SELECT w.stock, (SELECT count(*)::int FROM redemptions r WHERE r.reward_id = w.id AND r.object = 'redemption' AND r.status = 'SUCCEEDED') AS succeeded FROM rewards w WHERE w.id = $1`,
      [rewardId],
    )
  ).rows;
  stock.redeemed = (await call(api.base, headers, 'GET', `/v1/rewards/${rewardId}`)).redeemed;
  const oversold = stock.stock === null ? 0 : Math.max(0, stock.redeemed - stock.stock, stock.succeeded - stock.stock);
  return { cards: cards.cards, cards_off_their_ledger_or_buckets: cards.off, stock: stock.stock, redeemed: stock.redeemed, succeeded_redemptions: stock.succeeded, redeemed_matches_redemptions: stock.redeemed === stock.succeeded, oversold };
}
