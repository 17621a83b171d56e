import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Tx } from '../../../database/transaction-runner.js';

/** A distribution with work the API recorded for the worker (recover, resume, delete). */
export interface PendingWork {
  id: string;
  deleted: boolean;
  /** Set with `recoverRequestedAt`. */
  recoverSince: Date | null;
  /** Exact (microseconds, as text), so that a later request is never taken for this one. */
  recoverRequestedAt: string | null;
  resumeRequestedAt: string | null;
}

/** What one batch did: rows changed, and where the next batch starts (a `seq`; null: nothing was read). */
export interface BatchResult {
  changed: number;
  last: string | null;
}

/** Where a recover's batch stopped: its oldest delivery (created_at as PostgreSQL's text, exact). */
export interface RecoverPosition {
  createdAt: string;
  id: string;
}

/** Wakes every worker's dispatcher at commit, when a batch made deliveries due. */
const NOTIFY_DUE = `CASE WHEN count(*) > 0 THEN pg_notify('loyalty_deliveries', '') END`;

/**
 * The planner settings of a recover's batch, for its transaction: only index scans, no sort. The batch
 * must read the FAILED rows' index in its order and stop at `since`; with the statistics of a table where
 * most rows are recent (other distributions' deliveries), the planner preferred reading every FAILED row
 * of the distribution (a scan of the table, or of the (distribution, status, seq) index) and sorting them.
 */
export const RECOVER_PLAN = `SELECT set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true), set_config('enable_sort', 'off', true)`;

/**
 * One batch of a recover ($1 distribution, $2 since, $3/$4 the position after which it goes on, $5 the
 * batch): the index of FAILED deliveries by (distribution, created_at, id) yields them newest first and
 * stops at `since`, so no older FAILED row is read (issue 36: the scan by `seq` read every FAILED delivery
 * of the distribution, whatever `since`).
 */
export const RECOVER_BATCH = `
WITH scan AS (
  SELECT id, created_at FROM webhook_deliveries
  WHERE distribution_id = $1 AND status = 'FAILED' AND created_at >= $2
    AND ($3::timestamptz IS NULL OR (created_at, id) < ($3::timestamptz, $4::text))
  ORDER BY created_at DESC, id DESC LIMIT $5
), due AS (
  SELECT CASE WHEN status = 'ACTIVE' THEN now() END AS at FROM distributions WHERE id = $1
), changed AS (
  UPDATE webhook_deliveries d SET status = 'PENDING', manual = true, next_attempt_at = (SELECT at FROM due)
  WHERE d.id IN (SELECT id FROM scan) AND d.status = 'FAILED'
  RETURNING 1
), oldest AS (
  SELECT created_at::text AS created_at, id FROM scan ORDER BY created_at, id LIMIT 1
)
SELECT (SELECT count(*)::int FROM changed) AS changed, (SELECT count(*)::int FROM scan) AS read,
       (SELECT created_at FROM oldest) AS last_created_at, (SELECT id FROM oldest) AS last_id,
       (SELECT ${NOTIFY_DUE} FROM changed) AS notified`;

/**
 * The statements of WebhookHousekeeping: recover, resume and delete in bounded batches. Each batch reads at
 * most `limit` rows of the distribution from an index (resume and delete in `seq` order from the
 * (distribution, status, seq) or (distribution, seq) index; recover newest first from the FAILED rows'
 * (distribution, created_at, id) index, down to its `since`), starting after the previous batch's last row,
 * so that a whole run reads each row once however many there are; the row's state is checked again on the
 * locked row (READ COMMITTED re-checks the UPDATE's own conditions after a wait).
 */
@Injectable()
export class WebhookWorkRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Distributions with recorded work, at most `limit`. */
  async pending(limit: number): Promise<PendingWork[]> {
    const rows = (await this.dataSource.query(
      `SELECT id, status = 'DELETED' AS deleted, recover_since, recover_requested_at::text, resume_requested_at::text FROM distributions
       WHERE status = 'DELETED' OR recover_requested_at IS NOT NULL OR resume_requested_at IS NOT NULL LIMIT $1`,
      [limit],
    )) as { id: string; deleted: boolean; recover_since: Date | null; recover_requested_at: string | null; resume_requested_at: string | null }[];
    return rows.map((r) => ({ id: r.id, deleted: r.deleted, recoverSince: r.recover_since, recoverRequestedAt: r.recover_requested_at, resumeRequestedAt: r.resume_requested_at }));
  }

  /**
   * Recover, one batch: FAILED deliveries created since `since`, newest first from before `before`, get
   * one attempt (due now while the distribution is ACTIVE, else parked until it is), as redeliver does.
   * Read from the (distribution, created_at, id) index of FAILED rows (RECOVER_BATCH), so that a recover
   * reads only the deliveries it sends again, however many older ones failed; a short batch is the last.
   */
  async recoverBatch(distributionId: string, since: Date, before: RecoverPosition | null, limit: number): Promise<{ changed: number; last: RecoverPosition | null }> {
    const [row] = await this.dataSource.transaction(async (manager) => {
      await manager.query(RECOVER_PLAN);
      return (await manager.query(RECOVER_BATCH, [distributionId, since, before?.createdAt ?? null, before?.id ?? null, limit])) as {
        changed: number;
        read: number;
        last_created_at: string | null;
        last_id: string | null;
      }[];
    });
    const last = row.read < limit || row.last_created_at === null || row.last_id === null ? null : { createdAt: row.last_created_at, id: row.last_id };
    return { changed: row.changed, last };
  }

  /**
   * Resume, one batch: parked PENDING deliveries (no due time) from after `afterSeq` become due now, if the
   * distribution is still ACTIVE (paused again meanwhile: nothing to do, the pause parked them).
   */
  async resumeBatch(distributionId: string, afterSeq: string | null, limit: number): Promise<BatchResult> {
    const [row] = (await this.dataSource.query(
      `WITH scan AS (
         SELECT id, seq, next_attempt_at FROM webhook_deliveries
         WHERE distribution_id = $1 AND status = 'PENDING' AND ($2::bigint IS NULL OR seq > $2) ORDER BY seq LIMIT $3
       ), changed AS (
         UPDATE webhook_deliveries d SET next_attempt_at = now()
         WHERE d.id IN (SELECT id FROM scan WHERE next_attempt_at IS NULL) AND d.status = 'PENDING' AND d.next_attempt_at IS NULL
           AND EXISTS (SELECT 1 FROM distributions WHERE id = $1 AND status = 'ACTIVE')
         RETURNING 1
       )
       SELECT (SELECT count(*)::int FROM changed) AS changed, (SELECT max(seq)::text FROM scan) AS last,
              (SELECT ${NOTIFY_DUE} FROM changed) AS notified`,
      [distributionId, afterSeq, limit],
    )) as { changed: number; last: string | null }[];
    return { changed: row.changed, last: row.last };
  }

  /** Delete, one batch: up to `limit` deliveries of a deleted distribution, oldest first, and their attempts. */
  async deleteBatch(tx: Tx, distributionId: string, limit: number): Promise<number> {
    const [row] = (await tx.query(
      `WITH batch AS (
         SELECT id FROM webhook_deliveries WHERE distribution_id = $1 ORDER BY seq LIMIT $2
       ), attempts AS (
         DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM batch)
       ), gone AS (
         DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM batch) AND EXISTS (SELECT 1 FROM distributions WHERE id = $1 AND status = 'DELETED')
         RETURNING 1
       )
       SELECT count(*)::int AS n FROM gone`,
      [distributionId, limit],
    )) as { n: number }[];
    return row.n;
  }

  /** The deleted distribution's row, once its deliveries are gone (any left, e.g. made meanwhile, go with it). */
  async deleteDistribution(distributionId: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM distributions WHERE id = $1 AND status = 'DELETED'`, [distributionId]);
  }

  /** The recover is done, unless another was asked for since it was read. */
  async recoverDone(distributionId: string, requestedAt: string): Promise<void> {
    await this.dataSource.query(`UPDATE distributions SET recover_since = NULL, recover_requested_at = NULL WHERE id = $1 AND recover_requested_at = $2::timestamptz`, [distributionId, requestedAt]);
  }

  /** The resume is done, unless another was asked for since it was read. */
  async resumeDone(distributionId: string, requestedAt: string): Promise<void> {
    await this.dataSource.query(`UPDATE distributions SET resume_requested_at = NULL WHERE id = $1 AND resume_requested_at = $2::timestamptz`, [distributionId, requestedAt]);
  }
}
