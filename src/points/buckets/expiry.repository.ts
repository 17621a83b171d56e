import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { prepared, runPrepared } from '../../database/prepared.js';
import type { Tx } from '../../database/transaction-runner.js';
import type { LockedCards } from '../../cards/card.repository.js';
import { type EventCause, EVENTS, eventsInsertSql } from '../../events/recording/event-recording.js';

/** What one expiry statement did. */
export interface ExpiryResult {
  buckets: number;
  cards: number;
  points: number;
}

/**
 * The cards of up to `$1` buckets whose moment has come. Projects are taken in a random order and each
 * gives its soonest buckets, so a project with a million due buckets does not hold back another's few
 * (each batch starts with a project drawn at random). A card with a due pending entry not yet activated is
 * left for after its activation: points due to arrive at a moment arrive before points leave at it.
 */
export const DUE_CARDS = prepared(
  'buckets_due_cards',
  `SELECT b.voucher_id FROM (SELECT id FROM projects ORDER BY random()) p
   CROSS JOIN LATERAL (
     SELECT b.voucher_id FROM loyalty_points_buckets b
     WHERE b.project_id = p.id AND b.status = 'ACTIVE' AND b.expire_after <= now()
       AND NOT EXISTS (SELECT 1 FROM loyalty_pending_points pp
                       WHERE pp.voucher_id = b.voucher_id AND pp.status = 'PENDING' AND pp.activation_error IS NULL AND pp.activates_at <= now())
     ORDER BY b.expire_after LIMIT $1) b
   LIMIT $1`,
);

/**
 * One statement expires every due bucket of the locked cards, in the database (as activation does):
 * - `due`: ACTIVE → EXPIRED (conditional: a bucket expired by another worker is not in it);
 * - `agg`: per card, the points that leave and the buckets as the event shows them;
 * - `cards`: the balance lowered and `expired_points` raised, once per card, and its next expiration set;
 * - `tx`: one POINTS_EXPIRATION ledger row per card (negative), naming its buckets;
 * - `ev`: one `customer.voucher.loyalty_card.points_expired` event per card that has a holder.
 * Buckets already drained expire without a ledger row or an event when no points are left in them.
 */
export const EXPIRE = prepared(
  'buckets_expire',
  `WITH due AS (
     UPDATE loyalty_points_buckets b SET status = 'EXPIRED', updated_at = now()
     WHERE b.voucher_id = ANY($1::text[]) AND b.status = 'ACTIVE' AND b.expire_after <= now()
     RETURNING b.id, b.voucher_id, b.campaign_id, b.remaining, b.expires_at, b.created_at
   ), agg AS (
     SELECT voucher_id, sum(remaining)::bigint AS points,
            json_agg(json_build_object('id', id, 'voucher_id', voucher_id, 'campaign_id', campaign_id, 'bucket', json_build_object('total_points', remaining),
                                       'status', 'EXPIRED', 'expires_at', to_char(expires_at, 'YYYY-MM-DD'), 'created_at', loyalty_iso(created_at),
                                       'updated_at', loyalty_iso(now()), 'object', 'loyalty_points_bucket') ORDER BY expires_at, created_at, id) AS buckets,
            json_agg(json_build_object('id', id, 'points', remaining, 'expires_at', to_char(expires_at, 'YYYY-MM-DD')) ORDER BY expires_at, created_at, id) AS ledger_buckets
     FROM due GROUP BY voucher_id HAVING sum(remaining) > 0
   ), cards AS (
     UPDATE vouchers v SET balance = v.balance - agg.points, expired_points = v.expired_points + agg.points, updated_at = now(),
                           next_expiration_date = n.d, next_expiration_points = coalesce(n.p, 0)
     FROM agg
     LEFT JOIN LATERAL (
       -- The statement sees the due buckets as they were (ACTIVE): the ones not due are what is left.
       SELECT b.expires_at AS d, sum(b.remaining)::bigint AS p FROM loyalty_points_buckets b
       WHERE b.voucher_id = agg.voucher_id AND b.status = 'ACTIVE' AND b.remaining > 0 AND b.expires_at IS NOT NULL AND b.expire_after > now()
       GROUP BY b.expires_at ORDER BY b.expires_at LIMIT 1
     ) n ON true
     WHERE v.id = agg.voucher_id
     RETURNING v.*
   ), run AS (
     SELECT ROW(c.*)::vouchers AS card, c.id AS voucher_id, c.project_id, c.campaign_id, c.holder_id, a.points, a.buckets, c.points AS total, c.balance,
            'vtx_' || left(md5(random()::text || clock_timestamp()::text || c.id), 18) AS transaction_id,
            json_build_object('balance', json_build_object('type', 'loyalty_card', 'total', c.points, 'object', 'balance', 'points', -a.points, 'balance', c.balance,
                                                           'related_object', json_build_object('id', c.id, 'type', 'voucher')),
                              'buckets', a.ledger_buckets) AS details
     FROM cards c JOIN agg a ON a.voucher_id = c.id
   ), tx AS (
     INSERT INTO voucher_transactions (id, project_id, voucher_id, campaign_id, type, points, balance_after, details, created_at)
     SELECT transaction_id, project_id, voucher_id, campaign_id, 'POINTS_EXPIRATION', -points, balance, details, now() FROM run ORDER BY voucher_id
   ), ev AS (
     ${eventsInsertSql(`
       SELECT r.project_id, '${EVENTS.CUSTOMER.VOUCHER.LOYALTY_CARD.POINTS_EXPIRED}'::text AS type, r.holder_id AS entity_id, $2::text AS group_id, $3::jsonb AS event_source,
              json_build_object(
                'customer', loyalty_customer_json(cu),
                'campaign', loyalty_campaign_json(ca),
                'voucher', loyalty_voucher_json(r.card, ca.name, r.total, r.balance, (r.card).pending_points, (r.card).next_expiration_date, (r.card).next_expiration_points, (SELECT m.status = 'ACTIVE' FROM members m WHERE m.id = (r.card).member_id)),
                'points', r.points,
                'buckets', r.buckets,
                'transaction', json_build_object('id', r.transaction_id, 'source_id', NULL, 'voucher_id', r.voucher_id, 'campaign_id', r.campaign_id, 'source', NULL,
                                                 'reason', NULL, 'type', 'POINTS_EXPIRATION', 'details', r.details, 'related_transaction_id', NULL,
                                                 'created_at', loyalty_iso(now()))) AS data
       FROM run r
       JOIN customers cu ON cu.id = r.holder_id
       JOIN campaigns ca ON ca.id = r.campaign_id
       ORDER BY r.voucher_id`, '$4')}
   )
   SELECT (SELECT count(*) FROM due)::int AS buckets, (SELECT count(*) FROM run)::int AS cards, (SELECT coalesce(sum(points), 0) FROM run)::bigint AS points`,
);

@Injectable()
export class ExpiryRepository {
  constructor(private readonly config: AppConfig) {}

  /** The cards of up to `limit` due buckets (a card once per bucket), and how many buckets that was. */
  async dueCards(tx: Tx, limit: number): Promise<{ cardIds: string[]; buckets: number }> {
    const rows = await runPrepared<{ voucher_id: string }[]>(tx, DUE_CARDS, [limit]);
    return { cardIds: [...new Set(rows.map((row) => row.voucher_id))], buckets: rows.length };
  }

  /** Expires every due bucket of the locked cards, with their ledger rows and events. */
  async expire(locked: LockedCards, cause: EventCause): Promise<ExpiryResult> {
    if (!locked.cardIds.length) return { buckets: 0, cards: 0, points: 0 };
    const [row] = await runPrepared<{ buckets: number; cards: number; points: string }[]>(locked.tx, EXPIRE, [locked.cardIds, cause.groupId, JSON.stringify(cause.source), this.config.events.payloadMaxBytes]);
    return { buckets: row.buckets, cards: row.cards, points: Number(row.points) };
  }
}
