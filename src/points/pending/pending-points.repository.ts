import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { prepared, runPrepared } from '../../database/prepared.js';
import type { Tx } from '../../database/transaction-runner.js';
import type { LockedCards } from '../../cards/card.repository.js';
import { CardActivations, type NextActivation } from '../../members/card-activations.js';
import type { PendingPoints, PendingPointsDetails, PendingPointsStatus } from './pending-points.entity.js';

export interface NewPendingPoints {
  id: string;
  projectId: string;
  voucherId: string;
  campaignId: string;
  customerId: string;
  orderId: string;
  earningRuleId: string;
  points: number;
  /** `activates_at` = the database's now() + this. */
  delayMs: number;
  details: PendingPointsDetails;
}

/** Where a list of PENDING entries comes from, and which page. */
export interface PendingListQuery {
  projectId: string;
  campaignId?: string;
  voucherId?: string;
  limit: number;
  desc: boolean;
  startingAfterId?: string;
}

const COLUMNS = `id, project_id, voucher_id, campaign_id, customer_id, order_id, earning_rule_id, points, status, activates_at,
  details, activation_error, created_at, updated_at, settled_at`;

interface Row {
  id: string;
  project_id: string;
  voucher_id: string;
  campaign_id: string;
  customer_id: string;
  order_id: string;
  earning_rule_id: string;
  points: number;
  status: PendingPointsStatus;
  activates_at: Date;
  details: PendingPointsDetails;
  activation_error: string | null;
  created_at: Date;
  updated_at: Date | null;
  settled_at: Date | null;
}

function entity(row: Row): PendingPoints {
  return {
    id: row.id,
    projectId: row.project_id,
    voucherId: row.voucher_id,
    campaignId: row.campaign_id,
    customerId: row.customer_id,
    orderId: row.order_id,
    earningRuleId: row.earning_rule_id,
    points: row.points,
    status: row.status,
    activatesAt: row.activates_at,
    details: row.details,
    activationError: row.activation_error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    settledAt: row.settled_at,
  };
}

/**
 * Pending entries. Every change of status is one conditional UPDATE (`… AND status = 'PENDING'`): under
 * READ COMMITTED a second writer waits for the first, re-reads the row and matches nothing, so an entry is
 * activated or canceled once whoever races for it (the job, the sweep, two workers, fifty API calls).
 */
/** Per card, its PENDING entries summed by UTC day (the partial index idx_pending_points_card); the soonest day first. */
export const ACTIVATION_DAYS = prepared(
  'pending_points_activation_days',
  `SELECT voucher_id, to_char(activates_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, sum(points)::bigint AS points
   FROM loyalty_pending_points WHERE voucher_id = ANY($2::text[]) AND status = 'PENDING' AND project_id = $1
   GROUP BY 1, 2 ORDER BY 1, 2`,
);

/** An entry of the project by id (bench/'s plain baseline sends it, and the two below, too). */
export const BY_ID = `SELECT ${COLUMNS} FROM loyalty_pending_points WHERE id = $1 AND project_id = $2`;
/** One PENDING entry of the project, locked, waiting for a transaction that holds it. */
export const LOCK_PENDING = `SELECT id, voucher_id FROM loyalty_pending_points WHERE id = $1 AND project_id = $2 AND status = 'PENDING' FOR UPDATE`;
/** Due PENDING entries other than $1, soonest first and by card, up to $2, locked without waiting (idx_pending_points_due). */
export const DUE_FOR_ACTIVATION = `SELECT id, voucher_id FROM loyalty_pending_points WHERE status = 'PENDING' AND activation_error IS NULL AND activates_at <= now() AND NOT (id = ANY($1::text[]))
             ORDER BY activates_at, voucher_id LIMIT $2 FOR UPDATE SKIP LOCKED`;

/** How many entries are due, counting to $1 at most (a cohort job's first look), reading at most $1 index entries. */
export const DUE_UP_TO = `SELECT count(*)::int AS n FROM (SELECT 1 FROM loyalty_pending_points WHERE status = 'PENDING' AND activation_error IS NULL AND activates_at <= now() LIMIT $1) due`;

export const INSERT = prepared(
  'pending_insert',
  `INSERT INTO loyalty_pending_points (id, project_id, voucher_id, campaign_id, customer_id, order_id, earning_rule_id, points, activates_at, details)
       SELECT e.id, e.project_id, e.voucher_id, e.campaign_id, e.customer_id, e.order_id, e.earning_rule_id, e.points,
              now() + e.delay_ms * interval '1 millisecond', e.details
       FROM jsonb_to_recordset($1::jsonb) AS e(id text, project_id text, voucher_id text, campaign_id text, customer_id text, order_id text,
            earning_rule_id text, points int, delay_ms bigint, details jsonb)
       RETURNING ${COLUMNS}`,
);

@Injectable()
export class PendingPointsRepository implements CardActivations {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The v2 card's `next_activation`: per card, the soonest UTC day with PENDING points and their sum. */
  async nextActivations(projectId: string, cardIds: string[]): Promise<Map<string, NextActivation>> {
    const next = new Map<string, NextActivation>();
    if (!cardIds.length) return next;
    const rows = await runPrepared<{ voucher_id: string; day: string; points: string }[]>(this.dataSource, ACTIVATION_DAYS, [projectId, cardIds]);
    for (const row of rows) if (!next.has(row.voucher_id)) next.set(row.voucher_id, { date: row.day, points: Number(row.points) });
    return next;
  }

  async insert(locked: LockedCards, entries: NewPendingPoints[]): Promise<PendingPoints[]> {
    if (!entries.length) return [];
    locked.require(entries.map((e) => e.voucherId));
    const rows = await runPrepared<Row[]>(locked.tx, INSERT, [
        JSON.stringify(
          entries.map((e) => ({
            id: e.id,
            project_id: e.projectId,
            voucher_id: e.voucherId,
            campaign_id: e.campaignId,
            customer_id: e.customerId,
            order_id: e.orderId,
            earning_rule_id: e.earningRuleId,
            points: e.points,
            delay_ms: e.delayMs,
            details: e.details,
          })),
        ),
    ]);
    return rows.map(entity);
  }

  /** Locks one PENDING entry of the project, waiting for a transaction that holds it; null when it is not PENDING. */
  async lockPending(tx: Tx, projectId: string, id: string): Promise<{ id: string; voucherId: string } | null> {
    const [row] = (await tx.query(LOCK_PENDING, [id, projectId])) as {
      id: string;
      voucher_id: string;
    }[];
    return row ? { id: row.id, voucherId: row.voucher_id } : null;
  }

  /**
   * Locks, without waiting, the PENDING entries among `ids` and up to `extraDue` other due entries, soonest
   * first and by card; rows another transaction holds are skipped (it is settling them). The due part reads
   * the partial index `idx_pending_points_due` (PENDING rows by activates_at, voucher_id): with a million
   * entries not yet due it stops at the first index entry.
   */
  async lockForActivation(tx: Tx, ids: string[], extraDue: number): Promise<{ id: string; voucherId: string }[]> {
    const requested = ids.length
      ? ((await tx.query(`SELECT id, voucher_id FROM loyalty_pending_points WHERE id = ANY($1::text[]) AND status = 'PENDING' AND activation_error IS NULL FOR UPDATE SKIP LOCKED`, [ids])) as {
          id: string;
          voucher_id: string;
        }[])
      : [];
    const due =
      extraDue > 0
        ? ((await tx.query(DUE_FOR_ACTIVATION, [ids, extraDue])) as { id: string; voucher_id: string }[])
        : [];
    return [...requested, ...due].map((row) => ({ id: row.id, voucherId: row.voucher_id }));
  }

  /** How many entries are due now, counted up to `limit`. */
  async dueUpTo(limit: number): Promise<number> {
    const [row] = (await this.dataSource.query(DUE_UP_TO, [limit])) as { n: number }[];
    return row.n;
  }

  /** Sets aside PENDING entries the worker could not activate, with the reason (they leave the due index). */
  async setAside(tx: Tx, failures: { id: string; error: string }[]): Promise<void> {
    if (!failures.length) return;
    await tx.query(
      `UPDATE loyalty_pending_points p SET activation_error = f.error, updated_at = now()
       FROM unnest($1::text[], $2::text[]) AS f(id, error) WHERE p.id = f.id AND p.status = 'PENDING'`,
      [failures.map((f) => f.id), failures.map((f) => f.error)],
    );
  }

  /** PENDING → CANCELED for one entry, or for every PENDING entry of an order; their cards are locked. */
  async cancel(locked: LockedCards, where: { id: string; projectId: string } | { orderId: string }): Promise<PendingPoints[]> {
    const [rows] = (await locked.tx.query(
      'id' in where
        ? `UPDATE loyalty_pending_points SET status = 'CANCELED', updated_at = now(), settled_at = clock_timestamp()
           WHERE id = $1 AND project_id = $2 AND status = 'PENDING' RETURNING ${COLUMNS}`
        : `UPDATE loyalty_pending_points SET status = 'CANCELED', updated_at = now(), settled_at = clock_timestamp()
           WHERE order_id = $1 AND status = 'PENDING' RETURNING ${COLUMNS}`,
      'id' in where ? [where.id, where.projectId] : [where.orderId],
    )) as [Row[], number];
    locked.require(rows.map((row) => row.voucher_id));
    return rows.map(entity);
  }

  /** Adds `delta` to a PENDING entry's points if the result stays above 0; null when it does not apply. */
  async adjust(locked: LockedCards, id: string, projectId: string, delta: number): Promise<PendingPoints | null> {
    const [rows] = (await locked.tx.query(
      `UPDATE loyalty_pending_points SET points = points + $3, updated_at = now()
       WHERE id = $1 AND project_id = $2 AND status = 'PENDING' AND points + $3 > 0 RETURNING ${COLUMNS}`,
      [id, projectId, delta],
    )) as [Row[], number];
    locked.require(rows.map((row) => row.voucher_id));
    return rows[0] ? entity(rows[0]) : null;
  }

  async find(projectId: string, id: string): Promise<PendingPoints | null> {
    const [row] = (await this.dataSource.query(BY_ID, [id, projectId])) as Row[];
    return row ? entity(row) : null;
  }

  /** One page of PENDING entries by id, through the partial index of the card or the campaign. */
  async list(query: PendingListQuery): Promise<PendingPoints[]> {
    const params: unknown[] = [query.projectId];
    const where = [`status = 'PENDING'`, 'project_id = $1'];
    if (query.voucherId) where.push(`voucher_id = $${params.push(query.voucherId)}`);
    if (query.campaignId) where.push(`campaign_id = $${params.push(query.campaignId)}`);
    if (query.startingAfterId) where.push(`id ${query.desc ? '<' : '>'} $${params.push(query.startingAfterId)}`);
    const rows = (await this.dataSource.query(
      `SELECT ${COLUMNS} FROM loyalty_pending_points WHERE ${where.join(' AND ')} ORDER BY id ${query.desc ? 'DESC' : 'ASC'} LIMIT $${params.push(query.limit)}`,
      params,
    )) as Row[];
    return rows.map(entity);
  }

  /** Up to `limit` entries of locked cards deleted, whatever their status (a forced campaign deletion's batch); how many. */
  async deleteOfCards(locked: LockedCards, limit: number): Promise<number> {
    if (!locked.cardIds.length) return 0;
    const [, deleted] = (await locked.tx.query(
      'DELETE FROM loyalty_pending_points WHERE id IN (SELECT id FROM loyalty_pending_points WHERE voucher_id = ANY($1::text[]) LIMIT $2)',
      [locked.cardIds, limit],
    )) as [unknown, number];
    return deleted;
  }
}
