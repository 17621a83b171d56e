import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { prepared, runPrepared } from '../../database/prepared.js';
import { hexId } from '../../common/ids.js';
import { type LockedCards, nextExpirationSql } from '../../cards/card.repository.js';
import { BUCKET_DAY_KEY } from './points-bucket.entity.js';

/**
 * What a credit does to the ACTIVE bucket of its card and day that exists already (ON CONFLICT … DO UPDATE,
 * `b` the bucket, EXCLUDED the credit): its points are added (`total_points` counts every credit of the day),
 * and it takes the credit's moment.
 */
export const MERGE_CREDIT = `total_points = b.total_points + EXCLUDED.total_points, remaining = b.remaining + EXCLUDED.remaining,
  expire_after = EXCLUDED.expire_after, updated_at = now()`;

/**
 * The one INSERT of credits into buckets, for `credit` and the activation statement: `select` gives (id,
 * project_id, voucher_id, campaign_id, total_points, remaining, expires_at, expire_after), one row per card and
 * day at most (a statement may update a row once: the credits of a card and day summed first), and each goes
 * to the card's ACTIVE bucket of its day when there is one (ON CONFLICT on `uq_points_buckets_card_day`,
 * MERGE_CREDIT). The caller adds its RETURNING.
 */
export function bucketCreditSql(select: string): string {
  return `INSERT INTO loyalty_points_buckets AS b (id, project_id, voucher_id, campaign_id, total_points, remaining, expires_at, expire_after)
   ${select}
   ON CONFLICT (${BUCKET_DAY_KEY}) WHERE status = 'ACTIVE'
   DO UPDATE SET ${MERGE_CREDIT}`;
}

/**
 * The last day of points credited today under the rules (`rule`: an earning rule's row or NULL, `campaign`,
 * `project`: their rows in the statement): the earning rule's `expiration_rules` when it has them, else the
 * campaign's, else never, counted from today in the project's time zone (loyalty_points_expiry_date.sql).
 */
export function ruleExpiryDaySql(rule: string, campaign: string, project: string): string {
  return `loyalty_points_expiry_date(coalesce(${rule}.expiration_rules, ${campaign}.voucher->'loyalty_card'->'expiration_rules'), (now() AT TIME ZONE ${project}.time_zone)::date)`;
}

/**
 * A card's next expiration from its buckets (a LATERAL subquery: `d`, the soonest last day among its ACTIVE
 * buckets that hold points, and `p`, their points on that day; no row when none expire), through the drain
 * index: the first day of the card's buckets. `except`: an array of buckets to leave out (the expiry's, which
 * its statement still sees ACTIVE).
 */
export function nextExpirationOfSql(card: string, except?: string): string {
  return `SELECT b.expires_at AS d, sum(b.remaining)::bigint AS p FROM loyalty_points_buckets b
     WHERE b.voucher_id = ${card} AND b.status = 'ACTIVE' AND b.remaining > 0 AND b.expires_at IS NOT NULL${except ? ` AND b.id <> ALL(${except})` : ''}
     GROUP BY b.expires_at ORDER BY b.expires_at LIMIT 1`;
}

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

/** Points a debit took from one bucket (or a refund gives back to it). */
export interface BucketPoints {
  id: string;
  points: number;
  /** Its last day (`YYYY-MM-DD`); null: never expires. */
  expiresAt: string | null;
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
 * The credits of one card and day are summed and go to that day's bucket (`bucketCreditSql`). The bucket takes
 * the moment computed now (in the project's zone as it is now: the same moment at the real length of a day,
 * the right one after a zone change).
 */
export const CREDIT = prepared(
  'buckets_credit',
  `${bucketCreditSql(`SELECT min(c.id), c.project_id, c.voucher_id, c.campaign_id, sum(c.points), sum(c.points), e.expires_at, max(loyalty_points_expire_after(e.expires_at, p.time_zone))
   FROM json_to_recordset($1::json) AS c(id text, project_id text, voucher_id text, campaign_id text, points bigint, date date, never boolean, earning_rule_id text)
   JOIN projects p ON p.id = c.project_id
   JOIN campaigns ca ON ca.id = c.campaign_id
   LEFT JOIN earning_rules er ON er.id = c.earning_rule_id
   CROSS JOIN LATERAL (SELECT CASE
       WHEN c.date IS NOT NULL THEN c.date
       WHEN c.never THEN NULL
       ELSE ${ruleExpiryDaySql('er', 'ca', 'p')}
     END AS expires_at) e
   GROUP BY c.project_id, c.voucher_id, c.campaign_id, e.expires_at`)}
   RETURNING voucher_id, expires_at IS NOT NULL AS dated`,
);

/**
 * Cards' next expiration (`next_expiration_date`, `next_expiration_points`), set again after their buckets
 * changed, through the cards' own UPDATE (`nextExpirationSql`).
 */
export const REFRESH_NEXT = prepared(
  'buckets_refresh_next',
  nextExpirationSql(`(
     SELECT c.id, n.d AS day, coalesce(n.p, 0) AS points FROM unnest($1::text[]) AS c(id)
     LEFT JOIN LATERAL (${nextExpirationOfSql('c.id')}) n ON true
   ) n`),
);

/**
 * A debit drains the card's buckets that still hold points, the soonest-expiring first (never-expiring
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
   RETURNING x.id, take.taken, to_char(x.expires_at, 'YYYY-MM-DD') AS expires_at`,
);

/**
 * A refund gives points back to the very buckets a debit took them from (`$1`: id, voucher_id, points), all or
 * none: only when every one of them is still an ACTIVE bucket of its card (one that expired since is not
 * revived: the caller is told and nothing changes).
 */
export const RESTORE = prepared(
  'buckets_restore',
  `WITH r AS (
     SELECT id, voucher_id, sum(points)::bigint AS points FROM json_to_recordset($1::json) AS r(id text, voucher_id text, points bigint) GROUP BY id, voucher_id
   ), ok AS (
     SELECT count(*) = (SELECT count(*) FROM r) AS all_active FROM loyalty_points_buckets b JOIN r ON r.id = b.id AND r.voucher_id = b.voucher_id WHERE b.status = 'ACTIVE'
   )
   UPDATE loyalty_points_buckets b SET remaining = b.remaining + r.points, updated_at = now()
   FROM r WHERE b.id = r.id AND (SELECT all_active FROM ok)
   RETURNING b.voucher_id, b.expires_at IS NOT NULL AS dated`,
);

/** The point buckets of cards: credited, drained, restored and listed here; expired by ExpiryRepository. */
@Injectable()
export class BucketRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * The credits, on locked cards, each added to its card's bucket of its day (made if new); the cards that got
   * points which expire (their next expiration is the caller's to refresh: `refreshNext`).
   */
  async credit(locked: LockedCards, credits: BucketCredit[]): Promise<string[]> {
    if (!credits.length) return [];
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
    return rows.filter((row) => row.dated).map((row) => row.voucher_id);
  }

  /** Sets the next expiration of locked cards whose buckets changed. */
  async refreshNext(locked: LockedCards, cardIds: string[]): Promise<void> {
    const ids = [...new Set(cardIds)];
    if (!ids.length) return;
    locked.require(ids);
    await runPrepared(locked.tx, REFRESH_NEXT, [ids]);
  }

  /**
   * Takes `points` out of a locked card's buckets, soonest-expiring first; the caller checked the balance covers
   * them, and refreshes the card's next expiration. Which buckets gave how much, in the order they were drained.
   */
  async drain(locked: LockedCards, cardId: string, points: number): Promise<BucketPoints[]> {
    locked.require([cardId]);
    const [rows] = await runPrepared<[{ id: string; taken: string; expires_at: string | null }[], number]>(locked.tx, DRAIN, [cardId, points]);
    return rows
      .map((row) => ({ id: row.id, points: Number(row.taken), expiresAt: row.expires_at }))
      .sort((a, b) => (a.expiresAt ?? '9999-99-99').localeCompare(b.expiresAt ?? '9999-99-99'));
  }

  /**
   * Gives points back to the buckets of locked cards they were taken from, all or none: null when one of them is
   * no longer ACTIVE (nothing changed), else the cards whose restored buckets expire (to refresh, as for `credit`).
   */
  async restore(locked: LockedCards, refunds: { cardId: string; bucketId: string; points: number }[]): Promise<string[] | null> {
    if (!refunds.length) return [];
    locked.require(refunds.map((r) => r.cardId));
    const [rows] = await runPrepared<[{ voucher_id: string; dated: boolean }[], number]>(locked.tx, RESTORE, [
      JSON.stringify(refunds.map((r) => ({ id: r.bucketId, voucher_id: r.cardId, points: r.points }))),
    ]);
    if (!rows.length) return null;
    return rows.filter((row) => row.dated).map((row) => row.voucher_id);
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
