import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { prepared, runPrepared } from '../../database/prepared.js';
import type { Tx } from '../../database/transaction-runner.js';
import { cardDeltasSql, deltaColumnsSql, type LockedCards } from '../../cards/card.repository.js';
import { type EventCause, EVENTS, eventsInsertSql } from '../../events/recording/event-recording.js';
import { balanceJsonSql, ledgerInsertSql, transactionJsonSql } from '../ledger/ledger.repository.js';
import { nextExpirationOfSql } from './bucket.repository.js';

/** What one expiry statement did. */
export interface ExpiryResult {
  buckets: number;
  cards: number;
  points: number;
  /** Some of its cards still have due buckets: more than a chunk, or left out by the statement's budget. */
  more: boolean;
}

/** A card the expiry set aside (`vouchers.expiry_error`), as an operator sees it. */
export interface SetAsideCard {
  id: string;
  projectId: string;
  code: string;
  error: string;
  setAsideAt: Date;
}

/**
 * The cards of up to `$1` buckets whose moment has come. Projects are taken in a random order and each
 * gives its soonest buckets, so a project with a million due buckets does not hold back another's few
 * (each batch starts with a project drawn at random). A card with a due pending entry not yet activated is
 * left for after its activation: points due to arrive at a moment arrive before points leave at it. A card
 * set aside (`expiry_error`, after its expiry failed even alone) is left out until it is released.
 */
export const DUE_CARDS = prepared(
  'buckets_due_cards',
  `SELECT b.voucher_id FROM (SELECT id FROM projects ORDER BY random()) p
   CROSS JOIN LATERAL (
     SELECT b.voucher_id FROM loyalty_points_buckets b
     WHERE b.project_id = p.id AND b.status = 'ACTIVE' AND b.expire_after <= now()
       AND NOT EXISTS (SELECT 1 FROM loyalty_pending_points pp
                       WHERE pp.voucher_id = b.voucher_id AND pp.status = 'PENDING' AND pp.activation_error IS NULL AND pp.activates_at <= now())
       AND NOT EXISTS (SELECT 1 FROM vouchers v WHERE v.id = b.voucher_id AND v.expiry_error IS NOT NULL)
     ORDER BY b.expire_after LIMIT $1) b
   LIMIT $1`,
);

/**
 * One statement expires a chunk of due buckets of each locked card (`$4` at most per card, `$5` in all), in
 * the database (as activation does):
 * - `pick`: each card's soonest due buckets, at most a chunk (through `idx_points_buckets_card_due`, so a
 *   card's later buckets are never read); `chunk`: whole chunks, cards in id order, while the buckets before
 *   them stay within the statement's budget (a card's chunk always goes in whole);
 * - `due`: ACTIVE → EXPIRED (conditional: a bucket expired by another worker is not in it), by their ids (the
 *   primary key: a join with the CTE would read the whole table);
 * - `agg`: per card, the points that leave and the buckets as the event shows them;
 * - `cards`: the balance lowered and `expired_points` raised, once per card, and its next expiration set (the
 *   cards' UPDATE, `cardDeltasSql`; the next expiration from the card's other buckets: the statement sees the
 *   ones it expires as they were, ACTIVE);
 * - `tx`: one POINTS_EXPIRATION ledger row per card and chunk (negative), naming its buckets (`ledgerInsertSql`,
 *   `balanceJsonSql`);
 * - `ev`: one `customer.voucher.loyalty_card.points_expired` event per card and chunk that has a holder.
 * Buckets already drained expire without a ledger row or an event when no points are left in them. So no
 * statement, ledger row or event grows with a card's due buckets: a card with more than a chunk is expired
 * chunk by chunk, by the next batches (`more`).
 */
export const EXPIRE = prepared(
  'buckets_expire',
  `WITH pick AS MATERIALIZED (
     SELECT b.id, c.id AS voucher_id FROM unnest($1::text[]) AS c(id)
     CROSS JOIN LATERAL (
       SELECT b.id FROM loyalty_points_buckets b
       WHERE b.voucher_id = c.id AND b.status = 'ACTIVE' AND b.expire_after IS NOT NULL AND b.expire_after <= now()
       ORDER BY b.expire_after LIMIT $4
     ) b
   ), chunk AS MATERIALIZED (
     -- Within the budget (nearly always) every pick goes; otherwise (and only then: the second branch's sort
     -- is not run when its one-time filter is false) the buckets of whole cards while those before stay in it.
     SELECT id FROM pick WHERE (SELECT count(*) FROM pick) <= $5
     UNION ALL
     SELECT id FROM (SELECT id, count(*) OVER (ORDER BY voucher_id) - count(*) OVER (PARTITION BY voucher_id) AS before FROM pick) p
     WHERE (SELECT count(*) FROM pick) > $5 AND before < $5
   ), due AS (
     UPDATE loyalty_points_buckets b SET status = 'EXPIRED', updated_at = now()
     WHERE b.id = ANY(ARRAY(SELECT id FROM chunk)) AND b.status = 'ACTIVE'
     RETURNING b.id, b.voucher_id, b.campaign_id, b.remaining, b.expires_at, b.created_at
   ), agg AS (
     SELECT voucher_id, sum(remaining)::bigint AS points, array_agg(id) AS ids,
            json_agg(json_build_object('id', id, 'voucher_id', voucher_id, 'campaign_id', campaign_id, 'bucket', json_build_object('total_points', remaining),
                                       'status', 'EXPIRED', 'expires_at', to_char(expires_at, 'YYYY-MM-DD'), 'created_at', loyalty_iso(created_at),
                                       'updated_at', loyalty_iso(now()), 'object', 'loyalty_points_bucket') ORDER BY expires_at, created_at, id) AS buckets,
            json_agg(json_build_object('id', id, 'points', remaining, 'expires_at', to_char(expires_at, 'YYYY-MM-DD')) ORDER BY expires_at, created_at, id) AS ledger_buckets
     FROM due GROUP BY voucher_id HAVING sum(remaining) > 0
   ), cards AS (
     ${cardDeltasSql(
       `(SELECT agg.voucher_id AS id, ${deltaColumnsSql({ expired: 'agg.points' })}, n.d AS next_day, coalesce(n.p, 0) AS next_points
         FROM agg LEFT JOIN LATERAL (${nextExpirationOfSql('agg.voucher_id', 'agg.ids')}) n ON true) d`,
       { nextExpiration: true },
     )}
     RETURNING v.*
   ), run AS (
     SELECT ROW(c.*)::vouchers AS card, c.id AS voucher_id, c.project_id, c.campaign_id, c.holder_id, a.points, a.buckets, c.points AS total, c.balance,
            loyalty_time_id('vtx_') AS transaction_id,
            json_build_object('balance', ${balanceJsonSql('c.id', 'c.points', '-a.points', 'c.balance')}, 'buckets', a.ledger_buckets) AS details
     FROM cards c JOIN agg a ON a.voucher_id = c.id
   ), tx AS (
     ${ledgerInsertSql(`SELECT transaction_id, project_id, voucher_id, campaign_id, 'POINTS_EXPIRATION', -points, balance, NULL, NULL, NULL, details, now() FROM run ORDER BY voucher_id`)}
   ), ev AS (
     ${eventsInsertSql(`
       SELECT r.project_id, '${EVENTS.CUSTOMER.VOUCHER.LOYALTY_CARD.POINTS_EXPIRED}'::text AS type, r.holder_id AS entity_id, $2::text AS group_id, $3::jsonb AS event_source,
              json_build_object(
                'customer', loyalty_customer_json(cu),
                'campaign', loyalty_campaign_json(ca),
                'voucher', loyalty_voucher_json(r.card, ca.name, r.total, r.balance, (r.card).pending_points, (r.card).next_expiration_date, (r.card).next_expiration_points, (SELECT m.status = 'ACTIVE' FROM members m WHERE m.id = (r.card).member_id)),
                'points', r.points,
                'buckets', r.buckets,
                'transaction', ${transactionJsonSql({ id: 'r.transaction_id', voucherId: 'r.voucher_id', campaignId: 'r.campaign_id', type: "'POINTS_EXPIRATION'", details: 'r.details' })}) AS data
       FROM run r
       JOIN customers cu ON cu.id = r.holder_id
       JOIN campaigns ca ON ca.id = r.campaign_id
       ORDER BY r.voucher_id`, '$6')}
   )
   SELECT (SELECT count(*) FROM due)::int AS buckets, (SELECT count(*) FROM run)::int AS cards, (SELECT coalesce(sum(points), 0) FROM run)::bigint AS points,
          (SELECT count(*) FROM pick) > $5 OR EXISTS (SELECT 1 FROM pick GROUP BY voucher_id HAVING count(*) >= $4) AS more`,
);

@Injectable()
export class ExpiryRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  /** The cards of up to `limit` due buckets (a card once per bucket), and how many buckets that was. */
  async dueCards(tx: Tx, limit: number): Promise<{ cardIds: string[]; buckets: number }> {
    const rows = await runPrepared<{ voucher_id: string }[]>(tx, DUE_CARDS, [limit]);
    return { cardIds: [...new Set(rows.map((row) => row.voucher_id))], buckets: rows.length };
  }

  /**
   * Expires a chunk of due buckets (at most `chunk`) of each of `cardIds` (locked), at most `budget` buckets
   * in all, with their ledger rows and events.
   */
  async expire(locked: LockedCards, cardIds: string[], bounds: { chunk: number; budget: number }, cause: EventCause): Promise<ExpiryResult> {
    if (!cardIds.length) return { buckets: 0, cards: 0, points: 0, more: false };
    locked.require(cardIds);
    const [row] = await runPrepared<{ buckets: number; cards: number; points: string; more: boolean }[]>(locked.tx, EXPIRE, [
      cardIds,
      cause.groupId,
      JSON.stringify(cause.source),
      bounds.chunk,
      bounds.budget,
      this.config.events.payloadMaxBytes,
    ]);
    return { buckets: row.buckets, cards: row.cards, points: Number(row.points), more: row.more };
  }

  /** The cards set aside (of one project, or all), in id order, at most `limit`. */
  async setAsideCards(projectId: string | null, limit: number): Promise<SetAsideCard[]> {
    const rows = (await this.dataSource.query(
      `SELECT id, project_id, code, expiry_error, expiry_set_aside_at FROM vouchers WHERE expiry_error IS NOT NULL AND ($1::text IS NULL OR project_id = $1) ORDER BY id LIMIT $2`,
      [projectId, limit],
    )) as { id: string; project_id: string; code: string; expiry_error: string; expiry_set_aside_at: Date }[];
    return rows.map((row) => ({ id: row.id, projectId: row.project_id, code: row.code, error: row.expiry_error, setAsideAt: row.expiry_set_aside_at }));
  }
}
