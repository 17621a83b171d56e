import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { DataCipher } from '../../../common/crypto/data-cipher.js';
import type { Tx } from '../../../database/transaction-runner.js';
import { type ClaimRow, contextFrom, PARK, toContext } from '../delivery.sql.js';
import type { AttemptRecord, ClaimedDelivery, NotClaimed } from '../delivery.types.js';
import type { DeliveryStatus } from '../webhook-delivery.entity.js';
import { NO_FLUSH_WAIT, RECORD_CTES, recordParams } from './attempt.sql.js';

/**
 * Relays events into deliveries: the oldest rows of the outbox (SKIP LOCKED, so that two workers take
 * different ones) are deleted and each event gets one delivery per ACTIVE distribution of its (project,
 * type), in one statement. The unique (distribution, event) index makes a second relay harmless. When it
 * made deliveries, `NOTIFY loyalty_deliveries` (sent at commit) wakes every worker's dispatcher, so that all
 * workers send them, not only the one that relayed.
 *
 * A batch is bounded by deliveries, not only events: of the $1 oldest events it takes those whose running
 * count of deliveries stays within $2, and always the first (an event makes at most as many deliveries as
 * its project has distributions). The events left out stay locked by this transaction until it commits,
 * untouched, and are the next batch's; `more` says whether there may be another batch.
 */
const RELAY = `
WITH candidates AS (
  SELECT seq, event_id, project_id, type FROM event_outbox ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED
), fanout AS (
  SELECT d.project_id, d.trigger, count(*) AS n FROM distributions d
  WHERE d.status = 'ACTIVE' AND (d.project_id, d.trigger) IN (SELECT DISTINCT project_id, type FROM candidates)
  GROUP BY d.project_id, d.trigger
), batch AS (
  SELECT seq, event_id, project_id, type FROM (
    SELECT c.*, sum(coalesce(f.n, 0)) OVER (ORDER BY c.seq) AS running, row_number() OVER (ORDER BY c.seq) AS rn
    FROM candidates c LEFT JOIN fanout f ON f.project_id = c.project_id AND f.trigger = c.type
  ) w WHERE rn = 1 OR running <= $2
), gone AS (
  DELETE FROM event_outbox o USING batch b WHERE o.seq = b.seq RETURNING 1
), ins AS (
  INSERT INTO webhook_deliveries (id, project_id, distribution_id, event_id, event_type, next_attempt_at)
  SELECT 'whs_' || left(replace(gen_random_uuid()::text, '-', ''), 18), b.project_id, d.id, b.event_id, b.type, now()
  FROM batch b JOIN distributions d ON d.project_id = b.project_id AND d.trigger = b.type AND d.status = 'ACTIVE'
  ORDER BY b.seq, d.seq
  ON CONFLICT (distribution_id, event_id) DO NOTHING
  RETURNING 1
)
SELECT relayed, deliveries, relayed < candidates OR candidates = $1 AS more, CASE WHEN deliveries > 0 THEN pg_notify('loyalty_deliveries', '') END AS notified
FROM (SELECT (SELECT count(*)::int FROM gone) AS relayed, (SELECT count(*)::int FROM ins) AS deliveries, (SELECT count(*)::int FROM candidates) AS candidates) counts`;

/**
 * Takes a delivery for one attempt: PENDING, due, not held by another attempt, and its distribution ACTIVE
 * (or the attempt asked for by hand). The lease keeps a second worker (a duplicate job, a stalled job run
 * again) from sending it at the same time; it expires by itself if this worker dies.
 */
const CLAIM = `
WITH claimed AS (
  UPDATE webhook_deliveries d SET lease_until = now() + $2 * interval '1 millisecond'
  FROM distributions dist
  WHERE d.id = ANY($1::text[]) AND dist.id = d.distribution_id AND d.status = 'PENDING'
    AND (d.lease_until IS NULL OR d.lease_until < now())
    AND dist.status = 'ACTIVE'
    AND (d.next_attempt_at IS NULL OR d.next_attempt_at <= now() + interval '20 milliseconds')
    AND ${NO_FLUSH_WAIT}
  RETURNING d.*
)
${contextFrom('claimed')}`;

/** The deliveries' side of the worker: the relay, the jobs' claims and the attempts' records. */
@Injectable()
export class WorkerDeliveryRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly cipher: DataCipher,
  ) {}

  /**
   * Relays up to `limit` events making up to `maxDeliveries` deliveries (at least one event); how many
   * were relayed, how many deliveries were made, and whether more may be waiting.
   */
  async relay(tx: Tx, limit: number, maxDeliveries: number): Promise<{ relayed: number; deliveries: number; more: boolean }> {
    const [row] = (await tx.query(RELAY, [limit, maxDeliveries])) as { relayed: number; deliveries: number; more: boolean }[];
    return row;
  }

  /** Claims these deliveries for an attempt each; per id, what the attempt needs (but the payload), or when to come back. */
  async claimMany(ids: string[], leaseMs: number): Promise<(ClaimedDelivery | NotClaimed)[]> {
    const rows = (await this.dataSource.query(CLAIM, [ids, leaseMs])) as ClaimRow[];
    const claimed = new Map(rows.map((row) => [row.id, toContext(row, this.cipher)]));
    const missing = ids.filter((id) => !claimed.has(id));
    const why = new Map<string, NotClaimed>();
    if (missing.length) {
      // Not claimed: settled, held by another attempt, not due yet, or its distribution is not ACTIVE.
      const states = (await this.dataSource.query(
        `SELECT d.id, d.status, d.next_attempt_at, d.lease_until, d.manual, dist.status AS distribution_status
         FROM webhook_deliveries d JOIN distributions dist ON dist.id = d.distribution_id WHERE d.id = ANY($1::text[])`,
        [missing],
      )) as { id: string; status: DeliveryStatus; next_attempt_at: Date | null; lease_until: Date | null; manual: boolean; distribution_status: string }[];
      for (const state of states) {
        if (state.status !== 'PENDING' || state.distribution_status !== 'ACTIVE') continue;
        const times = [state.next_attempt_at, state.lease_until].filter((t): t is Date => t !== null).map((t) => t.getTime());
        why.set(state.id, { retryAt: new Date(Math.max(Date.now(), ...times)) });
      }
    }
    return ids.map((id) => claimed.get(id) ?? why.get(id) ?? { retryAt: null });
  }

  /**
   * The attempts and their deliveries' new states, in one statement (in the caller's transaction, if any);
   * how many were recorded (fewer when deliveries were deleted meanwhile).
   */
  async recordMany(tx: Tx | null, attempts: AttemptRecord[]): Promise<number> {
    const [row] = (await (tx ?? this.dataSource).query(`WITH ${RECORD_CTES} SELECT count(*)::int AS n FROM recorded`, recordParams(attempts))) as { n: number }[];
    return row.n;
  }

  /**
   * Claimed deliveries that were not sent (their payload could not be read now) are given back: their lease
   * ends `afterMs` from now, if it is still the claim's (`leaseUntil`: a claim whose lease ran out may have
   * been taken by another worker since), and `counted` ones count a failed load (`load_failures`).
   */
  async giveBack(deliveries: { id: string; leaseUntil: Date | null; counted: boolean }[], afterMs: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE webhook_deliveries d SET lease_until = now() + $4 * interval '1 millisecond', load_failures = d.load_failures + g.counted::int
       FROM unnest($1::text[], $2::timestamptz[], $3::boolean[]) AS g(id, lease_until, counted)
       WHERE d.id = ANY($1::text[]) AND d.id = g.id AND d.lease_until = g.lease_until AND d.status = 'PENDING' AND ${NO_FLUSH_WAIT}`,
      [deliveries.map((d) => d.id), deliveries.map((d) => d.leaseUntil), deliveries.map((d) => d.counted), afterMs],
    );
  }

  /** Every PENDING delivery of a distribution becomes FAILED (it was disabled), locked in id order. */
  async failPending(tx: Tx, distributionId: string): Promise<void> {
    await tx.query(
      `UPDATE webhook_deliveries SET status = 'FAILED', next_attempt_at = NULL, lease_until = NULL
       WHERE id IN (SELECT id FROM webhook_deliveries WHERE distribution_id = $1 AND status = 'PENDING' ORDER BY id FOR UPDATE)`,
      [distributionId],
    );
  }

  /** A paused distribution's PENDING deliveries wait without a due time (PARK). */
  async park(tx: Tx | null, distributionId: string): Promise<void> {
    await (tx ?? this.dataSource).query(PARK, [distributionId]);
  }
}
