import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { prepared, runPrepared } from '../../database/prepared.js';
import type { LockedCards } from '../../cards/card.repository.js';
import { hexId } from '../../common/ids.js';
import { BUCKET_DAY_KEY } from './points-bucket.entity.js';

/**
 * What a credit does to the ACTIVE bucket of its card and day that exists already (ON CONFLICT … DO UPDATE,
 * `b` the bucket, EXCLUDED the credit): its points are added (`total_points` counts every credit of the day),
 * and it takes the credit's moment.
 */
export const MERGE_CREDIT = `total_points = b.total_points + EXCLUDED.total_points, remaining = b.remaining + EXCLUDED.remaining,
  expire_after = EXCLUDED.expire_after, updated_at = now()`;

/**
 * When a credit's points expire: on a given last day, never, or by the rules (the earning rule's
 * `expiration_rules` when it has them, else the campaign's, else never), counted from today in the
 * project's time zone.
 */
export type BucketExpiry = { date: string } | 'NON_EXPIRING' | { earningRuleId: string | null };

export interface BucketCredit {
  projectId: string;
  cardId: string;
  campaignId: string;
  points: number;
  expiry: BucketExpiry;
}

/** A bucket as the API lists it. */
export interface BucketView {
  id: string;
  voucherId: string;
  campaignId: string;
  remaining: number;
  status: string;
  expiresAt: string | null;
  createdAt: Date;
  updatedAt: Date | null;
}

/**
 * One statement for a change's credits. The day a bucket's points expire is computed here, from the rules
 * stored with the earning rule and the campaign, by the same SQL function the activation statement and the
 * initial-points trigger call (loyalty_points_expiry_date.sql), so every way points arrive dates them alike.
 * A card has one ACTIVE bucket per day: the credits of one card and day are summed, and added to that day's
 * bucket when it has one (ON CONFLICT on `uq_points_buckets_card_day`; a row may be updated once per statement,
 * hence the sum first). The bucket takes the moment computed now (in the project's zone as it is now: the
 * same moment at the real length of a day, the right one after a zone change).
 */
export const CREDIT = prepared(
  'buckets_credit',
  `INSERT INTO loyalty_points_buckets AS b (id, project_id, voucher_id, campaign_id, total_points, remaining, expires_at, expire_after)
   SELECT min(c.id), c.project_id, c.voucher_id, c.campaign_id, sum(c.points), sum(c.points), e.expires_at, max(loyalty_points_expire_after(e.expires_at, p.time_zone))
   FROM json_to_recordset($1::json) AS c(id text, project_id text, voucher_id text, campaign_id text, points bigint, date date, never boolean, earning_rule_id text)
   JOIN projects p ON p.id = c.project_id
   JOIN campaigns ca ON ca.id = c.campaign_id
   LEFT JOIN earning_rules er ON er.id = c.earning_rule_id
   CROSS JOIN LATERAL (SELECT CASE
       WHEN c.date IS NOT NULL THEN c.date
       WHEN c.never THEN NULL
       ELSE loyalty_points_expiry_date(coalesce(er.expiration_rules, ca.voucher->'loyalty_card'->'expiration_rules'), (now() AT TIME ZONE p.time_zone)::date)
     END AS expires_at) e
   GROUP BY c.project_id, c.voucher_id, c.campaign_id, e.expires_at
   ON CONFLICT (${BUCKET_DAY_KEY}) WHERE status = 'ACTIVE'
   DO UPDATE SET ${MERGE_CREDIT}
   RETURNING voucher_id, expires_at IS NOT NULL AS dated`,
);

/**
 * A card's next expiration (`next_expiration_date`, `next_expiration_points`: the soonest last day among its
 * ACTIVE buckets that hold points, and their points on that day), set again after its buckets changed; only
 * cards whose values differ are written. Through the drain index: the first day of the card's buckets.
 */
export const REFRESH_NEXT = prepared(
  'buckets_refresh_next',
  `UPDATE vouchers v SET next_expiration_date = n.d, next_expiration_points = coalesce(n.p, 0)
   FROM unnest($1::text[]) AS c(id)
   LEFT JOIN LATERAL (
     SELECT b.expires_at AS d, sum(b.remaining)::bigint AS p FROM loyalty_points_buckets b
     WHERE b.voucher_id = c.id AND b.status = 'ACTIVE' AND b.remaining > 0 AND b.expires_at IS NOT NULL
     GROUP BY b.expires_at ORDER BY b.expires_at LIMIT 1
   ) n ON true
   WHERE v.id = c.id AND (v.next_expiration_date IS DISTINCT FROM n.d OR v.next_expiration_points <> coalesce(n.p, 0))`,
);

/**
 * A removal drains the card's buckets that still hold points, the soonest-expiring first (never-expiring
 * last; among equals the oldest), through the index of exactly those buckets.
 */
export const DRAIN = prepared(
  'buckets_drain',
  `WITH b AS (
     SELECT id, remaining, sum(remaining) OVER (ORDER BY expires_at NULLS LAST, created_at, id) - remaining AS before
     FROM loyalty_points_buckets WHERE voucher_id = $1 AND status = 'ACTIVE' AND remaining > 0
   ), take AS (
     SELECT id, least(remaining, $2::bigint - before) AS taken FROM b WHERE before < $2::bigint
   )
   UPDATE loyalty_points_buckets x SET remaining = x.remaining - take.taken, updated_at = now()
   FROM take WHERE x.id = take.id
   RETURNING x.id, take.taken`,
);

/** The point buckets of cards: credited, drained and listed here; expired by ExpiryRepository. */
@Injectable()
export class BucketRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The credits, on locked cards, each added to its card's bucket of its day (made if new); the next expiration of cards that got dated points. */
  async credit(locked: LockedCards, credits: BucketCredit[]): Promise<void> {
    if (!credits.length) return;
    locked.require(credits.map((c) => c.cardId));
    const rows = await runPrepared<{ voucher_id: string; dated: boolean }[]>(locked.tx, CREDIT, [
      JSON.stringify(
        credits.map((c) => ({
          id: hexId('lopb_'),
          project_id: c.projectId,
          voucher_id: c.cardId,
          campaign_id: c.campaignId,
          points: c.points,
          date: typeof c.expiry === 'object' && 'date' in c.expiry ? c.expiry.date : null,
          never: c.expiry === 'NON_EXPIRING',
          earning_rule_id: typeof c.expiry === 'object' && 'earningRuleId' in c.expiry ? c.expiry.earningRuleId : null,
        })),
      ),
    ]);
    await this.refreshNext(locked, rows.filter((row) => row.dated).map((row) => row.voucher_id));
  }

  /** Sets the next expiration of locked cards whose buckets changed. */
  async refreshNext(locked: LockedCards, cardIds: string[]): Promise<void> {
    const ids = [...new Set(cardIds)];
    if (!ids.length) return;
    locked.require(ids);
    await runPrepared(locked.tx, REFRESH_NEXT, [ids]);
  }

  /** Takes `points` out of a locked card's buckets, soonest-expiring first; the caller checked the balance covers them. */
  async drain(locked: LockedCards, cardId: string, points: number): Promise<{ id: string; taken: number }[]> {
    locked.require([cardId]);
    const [rows] = await runPrepared<[{ id: string; taken: string }[], number]>(locked.tx, DRAIN, [cardId, points]);
    await this.refreshNext(locked, [cardId]);
    return rows.map((row) => ({ id: row.id, taken: Number(row.taken) }));
  }

  /** Today in the project's time zone (`YYYY-MM-DD`): the first day a bucket may be given as its last. */
  async today(projectId: string): Promise<string> {
    const [row] = (await this.dataSource.query(`SELECT to_char(now() AT TIME ZONE time_zone, 'YYYY-MM-DD') AS today FROM projects WHERE id = $1`, [projectId])) as { today: string }[];
    return row.today;
  }

  /** One page of a card's ACTIVE buckets, the soonest-expiring first (one per day: the order of `uq_points_buckets_card_day`), and how many there are. */
  async list(projectId: string, cardId: string, limit: number, offset: number): Promise<{ rows: BucketView[]; total: number }> {
    const rows = (await this.dataSource.query(
      `SELECT id, voucher_id, campaign_id, remaining, status, to_char(expires_at, 'YYYY-MM-DD') AS expires_at, created_at, updated_at
       FROM loyalty_points_buckets WHERE voucher_id = $1 AND project_id = $2 AND status = 'ACTIVE'
       ORDER BY coalesce(expires_at, 'infinity'::date) LIMIT $3 OFFSET $4`,
      [cardId, projectId, limit, offset],
    )) as { id: string; voucher_id: string; campaign_id: string; remaining: string; status: string; expires_at: string | null; created_at: Date; updated_at: Date | null }[];
    const [{ total }] = (await this.dataSource.query(`SELECT count(*)::int AS total FROM loyalty_points_buckets WHERE voucher_id = $1 AND project_id = $2 AND status = 'ACTIVE'`, [
      cardId,
      projectId,
    ])) as { total: number }[];
    return {
      rows: rows.map((row) => ({
        id: row.id,
        voucherId: row.voucher_id,
        campaignId: row.campaign_id,
        remaining: Number(row.remaining),
        status: row.status,
        expiresAt: row.expires_at,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
      })),
      total,
    };
  }

  /** The next cards of a project (after `afterId`, in id order) that have dated ACTIVE buckets. */
  async cardsWithDatedBuckets(projectId: string, afterId: string, limit: number): Promise<string[]> {
    const rows = (await this.dataSource.query(
      `SELECT voucher_id FROM loyalty_points_buckets
       WHERE project_id = $1 AND status = 'ACTIVE' AND expire_after IS NOT NULL AND voucher_id > $2
       GROUP BY voucher_id ORDER BY voucher_id LIMIT $3`,
      [projectId, afterId, limit],
    )) as { voucher_id: string }[];
    return rows.map((row) => row.voucher_id);
  }

  /**
   * After their project's time zone changed: the locked cards' ACTIVE buckets expire at the end of their last day
   * there. Only the moment moves: the day, which is the key of a card's bucket, stays, so no two buckets come
   * to share one (a credit made before this reached its card already went to the bucket of its day).
   */
  async reschedule(locked: LockedCards): Promise<number> {
    if (!locked.cardIds.length) return 0;
    const [, count] = (await locked.tx.query(
      `UPDATE loyalty_points_buckets b SET expire_after = loyalty_points_expire_after(b.expires_at, p.time_zone)
       FROM projects p WHERE p.id = b.project_id AND b.voucher_id = ANY($1::text[]) AND b.status = 'ACTIVE' AND b.expires_at IS NOT NULL`,
      [locked.cardIds],
    )) as [unknown, number];
    return count;
  }

  /** Up to `limit` buckets of locked cards deleted, whatever their status (a forced campaign deletion's batch); how many. */
  async deleteOfCards(locked: LockedCards, limit: number): Promise<number> {
    if (!locked.cardIds.length) return 0;
    const [, deleted] = (await locked.tx.query(
      'DELETE FROM loyalty_points_buckets WHERE id IN (SELECT id FROM loyalty_points_buckets WHERE voucher_id = ANY($1::text[]) LIMIT $2)',
      [locked.cardIds, limit],
    )) as [unknown, number];
    return deleted;
  }
}
