import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { prepared, runPrepared } from '../../database/prepared.js';
import { type EventCause, EVENTS, eventsInsertSql } from '../../events/recording/event-recording.js';
import { cardDeltasSql, deltaColumnsSql, type LockedCards } from '../../cards/card.repository.js';
import { bucketCreditSql, REFRESH_NEXT, ruleExpiryDaySql } from '../buckets/bucket.repository.js';
import { balanceJsonSql, ledgerInsertSql, transactionJsonSql } from '../ledger/ledger.repository.js';
import type { OperationType } from './pending-events.repository.js';

/** An entry this statement activated, and its card right after it. */
export interface ActivatedEntry {
  id: string;
  voucherId: string;
  points: number;
  /** The card's lifetime points, balance and pending points right after this entry. */
  total: number;
  balance: number;
  pending: number;
}

/**
 * One statement activates a batch of entries that the transaction has locked, in the database:
 *
 * - `upd`: PENDING → ACTIVATED (conditional: an entry no longer PENDING is not in the batch);
 * - `cards`: each card credited once with its entries' sum (their locks are held already), by the cards' UPDATE
 *   (`cardDeltasSql`: points and balance up, pending points down, `pending_activated_points` up);
 * - `dates`: each earning rule's expiry day for the batch (MATERIALIZED: inlined, the CTE would call the date
 *   function, which PostgreSQL cannot inline, once per entry, which cost a third of the throughput;
 *   bench/README.md, "Point buckets"); pending points start their clock at activation, so it counts from today
 *   under the earning rule's expiration rules, else the campaign's;
 * - `joined`/`run`: each entry's card right after it, entries of one card applying in id order, with its next
 *   expiration: the sooner of the card's as it was and the buckets of its entries up to this one (`new_day`, a
 *   running minimum, and `new_day_points`, their points on that day: the statement cannot read the buckets
 *   it credits);
 * - `joined` also builds each entry's JSON once (loyalty_pending_points_json, inlined), as it is now, ACTIVATED:
 *   the ledger row's `details.pending_points` and the event's `pending_points` are that one value (`joined` has
 *   a window function, so PostgreSQL does not pull it up into `run` and compute it twice);
 * - `tx`: one PENDING_POINTS_ACTIVATION ledger row per entry (unique per entry: the last line of defence), by the
 *   ledger's INSERT (`ledgerInsertSql`), its `details.balance` by `balanceJsonSql`;
 * - `bk`: the entries' points go to their card's bucket of their rule's day (one per card and day: the entries
 *   of a card and day summed, added to the bucket when the card has it: `bucketCreditSql`, as `BucketRepository.credit`);
 * - `ev`: one `customer.voucher.loyalty_card.pending_points.activated` event per entry, its `data` built by
 *   the payload functions of src/database/functions/ (customer, campaign, voucher, order, pending_points)
 *   and in the statement (balance; the ledger row as `transactionJsonSql` builds it).
 *
 * Building rows and payloads in PostgreSQL, not in Node, doubled the worker's activations per second
 * (bench/README.md): the database has a core of its own, and the worker's is needed for the queue.
 */
const ACTIVATE = `
WITH upd AS (
  UPDATE loyalty_pending_points p SET status = 'ACTIVATED', updated_at = now(), settled_at = clock_timestamp()
  WHERE p.id = ANY($1::text[]) AND p.status = 'PENDING' AND p.voucher_id = ANY($5::text[])
  RETURNING p.*
), agg AS (
  SELECT voucher_id, sum(points)::bigint AS points FROM upd GROUP BY voucher_id
), cards AS (
  ${cardDeltasSql(`(SELECT voucher_id AS id, ${deltaColumnsSql({ points: 'points', pending: '-points', activated: 'points' })} FROM agg) d`)}
  RETURNING v.*
), dates AS MATERIALIZED (
  SELECT k.campaign_id, k.earning_rule_id, e.expires_at, loyalty_points_expire_after(e.expires_at, pr.time_zone) AS expire_after
  FROM (SELECT DISTINCT project_id, campaign_id, earning_rule_id FROM upd) k
  JOIN projects pr ON pr.id = k.project_id
  JOIN campaigns ca ON ca.id = k.campaign_id
  LEFT JOIN earning_rules er ON er.id = k.earning_rule_id
  CROSS JOIN LATERAL (SELECT ${ruleExpiryDaySql('er', 'ca', 'pr')} AS expires_at) e
), joined AS (
  SELECT ROW(u.*)::loyalty_pending_points AS entry, ROW(c.*)::vouchers AS card, loyalty_pending_points_json(ROW(u.*)::loyalty_pending_points) AS entry_json,
         coalesce(sum(u.points) OVER (PARTITION BY u.voucher_id ORDER BY u.id DESC ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)::bigint AS later,
         d.expires_at AS bucket_day, min(d.expires_at) OVER (PARTITION BY u.voucher_id ORDER BY u.id ROWS UNBOUNDED PRECEDING) AS new_day
  FROM upd u JOIN cards c ON c.id = u.voucher_id
  LEFT JOIN dates d ON d.campaign_id = u.campaign_id AND d.earning_rule_id = u.earning_rule_id
), run AS (
  SELECT entry, card, entry_json, (entry).id, (entry).project_id, (entry).voucher_id, (entry).campaign_id, (entry).customer_id, (entry).order_id, (entry).points,
         (card).points - later AS total, (card).balance - later AS balance, (card).pending_points + later AS pending,
         least((card).next_expiration_date, new_day) AS next_day, new_day,
         sum(CASE WHEN bucket_day = new_day THEN (entry).points ELSE 0 END) OVER (PARTITION BY (entry).voucher_id, new_day ORDER BY (entry).id ROWS UNBOUNDED PRECEDING)::bigint AS new_day_points,
         loyalty_time_id('vtx_') AS transaction_id,
         json_build_object(
           'balance', ${balanceJsonSql('(entry).voucher_id', '(card).points - later', '(entry).points', '(card).balance - later')},
           'order', (entry).details->'order', 'event', json_build_object('id', (entry).details->'event'->>'id', 'type', (entry).details->'event'->>'type'),
           'earning_rule', (entry).details->'earning_rule', 'pending_points', entry_json) AS transaction_details
  FROM joined
), tx AS (
  ${ledgerInsertSql(`SELECT transaction_id, project_id, voucher_id, campaign_id, 'PENDING_POINTS_ACTIVATION', points, balance, order_id, id, NULL, transaction_details, now()
  FROM run ORDER BY voucher_id, id`)}
), bk AS (
  ${bucketCreditSql(`SELECT 'lopb_' || left(md5(random()::text || clock_timestamp()::text || min(u.id)), 18), u.project_id, u.voucher_id, u.campaign_id, sum(u.points), sum(u.points),
         d.expires_at, max(d.expire_after)
  FROM upd u JOIN dates d ON d.campaign_id = u.campaign_id AND d.earning_rule_id = u.earning_rule_id
  GROUP BY u.project_id, u.voucher_id, u.campaign_id, d.expires_at`)}
  RETURNING voucher_id, expires_at
), ev AS (
  ${eventsInsertSql(`
    SELECT r.project_id, '${EVENTS.CUSTOMER.VOUCHER.LOYALTY_CARD.PENDING_POINTS.ACTIVATED}'::text AS type, r.customer_id AS entity_id, $3::text AS group_id,
           $4::jsonb AS event_source,
           json_build_object(
             'customer', loyalty_customer_json(cu),
             'campaign', loyalty_campaign_json(ca),
             'voucher', loyalty_voucher_json(r.card, ca.name, r.total, r.balance, r.pending, r.next_day,
                                             CASE WHEN (r.card).next_expiration_date = r.next_day THEN (r.card).next_expiration_points ELSE 0 END
                                             + CASE WHEN r.new_day = r.next_day THEN r.new_day_points ELSE 0 END,
                                             (SELECT m.status = 'ACTIVE' FROM members m WHERE m.id = (r.card).member_id)),
             'balance', json_build_object('points', r.points, 'total', r.total, 'balance', r.balance, 'type', 'loyalty_card', 'object', 'balance',
                                          'related_object', json_build_object('type', 'voucher', 'id', r.voucher_id), 'operation_type', $2::text),
             'order', loyalty_order_json(o),
             'transaction', ${transactionJsonSql({ id: 'r.transaction_id', voucherId: 'r.voucher_id', campaignId: 'r.campaign_id', type: "'PENDING_POINTS_ACTIVATION'", details: 'r.transaction_details' })},
             'pending_points', r.entry_json) AS data
    FROM run r
    JOIN customers cu ON cu.id = r.customer_id
    JOIN campaigns ca ON ca.id = r.campaign_id
    LEFT JOIN orders o ON o.id = r.order_id
    ORDER BY r.voucher_id, r.id`, '$6')}
)
SELECT r.id, r.voucher_id, r.points, r.total, r.balance, r.pending, d.dated
FROM run r LEFT JOIN (SELECT voucher_id, bool_or(expires_at IS NOT NULL) AS dated FROM bk GROUP BY voucher_id) d ON d.voucher_id = r.voucher_id
ORDER BY r.voucher_id, r.id`;

export const ACTIVATE_STATEMENT = prepared('pending_activate', ACTIVATE);

@Injectable()
export class ActivationRepository {
  constructor(private readonly config: AppConfig) {}

  /**
   * Activates `ids` (locked by the transaction) and writes their ledger rows and events. Only entries whose
   * card is in `locked` are activated: the statement itself keeps the lock discipline.
   */
  async activate(locked: LockedCards, ids: string[], operation: OperationType, cause: EventCause): Promise<ActivatedEntry[]> {
    if (!ids.length || !locked.cardIds.length) return [];
    const rows = (await runPrepared(locked.tx, ACTIVATE_STATEMENT, [ids, operation, cause.groupId, JSON.stringify(cause.source), locked.cardIds, this.config.events.payloadMaxBytes])) as {
      id: string;
      voucher_id: string;
      points: number;
      total: string;
      balance: string;
      pending: string;
      dated: boolean | null;
    }[];
    // A card that got a bucket which expires may have a new next expiration (a statement of its own: the
    // activation statement cannot see the buckets it inserts).
    const dated = rows.filter((row) => row.dated).map((row) => row.voucher_id);
    if (dated.length) await runPrepared(locked.tx, REFRESH_NEXT, [[...new Set(dated)]]);
    return rows.map((row) => ({ id: row.id, voucherId: row.voucher_id, points: row.points, total: Number(row.total), balance: Number(row.balance), pending: Number(row.pending) }));
  }
}
