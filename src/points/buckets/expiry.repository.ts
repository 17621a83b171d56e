import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { prepared, runPrepared } from '../../database/prepared.js';
import type { Tx } from '../../database/transaction-runner.js';
import type { LockedCards } from '../../cards/card.repository.js';
import { type EventCause, EVENTS, eventsInsertSql } from '../../events/recording/event-recording.js';

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
 * - `cards`: the balance lowered and `expired_points` raised, once per card, and its next expiration set;
 * - `tx`: one POINTS_EXPIRATION ledger row per card and chunk (negative), naming its buckets;
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
     UPDATE vouchers v SET balance = v.balance - agg.points, expired_points = v.expired_points + agg.points, updated_at = now(),
                           next_expiration_date = n.d, next_expiration_points = coalesce(n.p, 0)
     FROM agg
     LEFT JOIN LATERAL (
       -- The statement sees the buckets it expires as they were (ACTIVE): the others are what is left.
       SELECT b.expires_at AS d, sum(b.remaining)::bigint AS p FROM loyalty_points_buckets b
       WHERE b.voucher_id = agg.voucher_id AND b.status = 'ACTIVE' AND b.remaining > 0 AND b.expires_at IS NOT NULL AND b.id <> ALL(agg.ids)
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
       ORDER BY r.voucher_id`, '$6')}
   )
   SELECT (SELECT count(*) FROM due)::int AS buckets, (SELECT count(*) FROM run)::int AS cards, (SELECT coalesce(sum(points), 0) FROM run)::bigint AS points,
          (SELECT count(*) FROM pick) > $5 OR EXISTS (SELECT 1 FROM pick GROUP BY voucher_id HAVING count(*) >= $4) AS more`,
);

/** The cards set aside for `retryMs` or longer (or the given ones), released in id order without waiting for a card another transaction holds. */
const RELEASE = `UPDATE vouchers v SET expiry_error = NULL, expiry_set_aside_at = NULL
   WHERE v.id IN (SELECT id FROM vouchers WHERE expiry_error IS NOT NULL AND ($1::text[] IS NULL OR id = ANY($1::text[])) AND ($2::text IS NULL OR project_id = $2)
                    AND expiry_set_aside_at <= now() - make_interval(secs => $3::float8 / 1000)
                  ORDER BY id FOR NO KEY UPDATE SKIP LOCKED)
   RETURNING v.id`;

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

  /** Sets locked cards aside with the error their expiry failed with: the sweep leaves them out until released. */
  async setAside(locked: LockedCards, failures: { cardId: string; error: string }[]): Promise<void> {
    if (!failures.length) return;
    locked.require(failures.map((f) => f.cardId));
    await locked.tx.query(
      `UPDATE vouchers v SET expiry_error = f.error, expiry_set_aside_at = now() FROM unnest($1::text[], $2::text[]) AS f(id, error) WHERE v.id = f.id`,
      [failures.map((f) => f.cardId), failures.map((f) => f.error)],
    );
  }

  /**
   * Releases set-aside cards: those set aside at least `olderThanMs` ago, of one project or all, or only the
   * given ones. A card another transaction holds is left (it is released at the next call). The ids released.
   */
  async release(filter: { cardIds?: string[]; projectId?: string; olderThanMs?: number }): Promise<string[]> {
    const rows = (await this.dataSource.query(RELEASE, [filter.cardIds ?? null, filter.projectId ?? null, filter.olderThanMs ?? 0])) as [{ id: string }[], number];
    return rows[0].map((row) => row.id).sort();
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
