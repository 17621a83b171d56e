import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Tx } from '../../database/transaction-runner.js';
import type { EventSource } from '../event.entity.js';
import { type DeliveryStatus, WebhookAttempt, WebhookDelivery } from './webhook-delivery.entity.js';

/** Everything one attempt needs, read when the attempt claims its delivery. */
export interface AttemptContext {
  id: string;
  projectId: string;
  createdAt: Date;
  attemptsCount: number;
  firstAttemptAt: Date | null;
  manual: boolean;
  /** A test delivery: `event` is the sample of testEventOf. */
  test: boolean;
  distributionId: string;
  targetUrl: string;
  customHeaders: Record<string, string>;
  eventName: string | null;
  trigger: string;
  /** `data` is JSON text, as the events table holds it (the envelope embeds it as it is). */
  event: { id: string; type: string; createdAt: Date; entityId: string; groupId: string; eventSource: EventSource; data: string } | null;
  secret: { current: string; previous: string | null; previousExpiresAt: Date | null } | null;
}

/** What a delivery job carries. */
export interface DeliveryRef {
  id: string;
  distributionId: string;
  projectId: string;
}

/** Why a delivery could not be claimed: nothing to do, or come back at `retryAt`. */
export type NotClaimed = { retryAt: Date | null };

export interface AttemptRecord {
  deliveryId: string;
  at: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseExcerpt: string | null;
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
}

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
 * A condition that is always true and makes the statement's own transaction commit without waiting for
 * the WAL flush (`synchronous_commit` off, for this transaction only). Used by the attempt's bookkeeping
 * (the lease and the attempt's record), never by the relay: losing such a commit in a server crash only
 * means the delivery is sent once more, with the same `webhook-id`, which at-least-once delivery allows;
 * waiting for two disk flushes per delivery capped throughput far below what the receiver can take.
 */
export const NO_FLUSH_WAIT = `(SELECT set_config('synchronous_commit', 'off', true)) IS NOT NULL`;

/** Everything an attempt needs, for the deliveries of the CTE `source`. */
export const contextFrom = (source: string) => `
SELECT c.id, c.project_id, c.created_at, c.attempts_count, c.first_attempt_at, c.manual, c.test,
       dist.id AS distribution_id, dist.target_url, dist.custom_headers, dist.event_name, dist.trigger,
       ev.id AS event_id, ev.type AS event_type, ev.created_at AS event_created_at, ev.entity_id, ev.group_id, ev.event_source, ev.data::text AS data,
       s.secret, s.previous_secret, s.previous_expires_at
FROM ${source} c
JOIN distributions dist ON dist.id = c.distribution_id
LEFT JOIN events ev ON ev.id = c.event_id
LEFT JOIN webhook_secrets s ON s.project_id = c.project_id`;

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

/** A delivery asked for by hand is due now if its distribution is ACTIVE, else parked (no due time) until it is. */
const DUE_IF_ACTIVE = `(SELECT CASE WHEN dist.status = 'ACTIVE' THEN now() END FROM distributions dist WHERE dist.id = webhook_deliveries.distribution_id)`;

/**
 * Attempts ($1–$8, one array per column) and their deliveries' new states, as CTEs ending in `recorded`.
 * The delivery's lease ends with its record. The deliveries are found by primary key (`= ANY($1)`): joined
 * to the input alone, the planner could scan the whole table. An attempt is stored only for a delivery the
 * UPDATE found (and locked): one whose distribution was deleted while its attempt was in flight is gone,
 * and its attempt is dropped instead of failing the whole batch on the foreign key (issue 26).
 */
export const RECORD_CTES = `
input AS (
  SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::int[], $4::int[], $5::text[], $6::text[], $7::text[], $8::timestamptz[])
    AS t(delivery_id, at, status_code, duration_ms, error, response_excerpt, status, next_attempt_at)
), recorded AS (
  UPDATE webhook_deliveries d SET status = i.status, attempts_count = d.attempts_count + 1, first_attempt_at = coalesce(d.first_attempt_at, i.at),
    next_attempt_at = i.next_attempt_at, delivered_at = CASE WHEN i.status = 'SUCCEEDED' THEN now() END, lease_until = NULL, manual = false
  FROM input i WHERE d.id = ANY($1::text[]) AND d.id = i.delivery_id AND ${NO_FLUSH_WAIT}
  RETURNING d.id
), att AS (
  INSERT INTO webhook_attempts (delivery_id, at, status_code, duration_ms, error, response_excerpt)
  SELECT i.delivery_id, i.at, i.status_code, i.duration_ms, i.error, i.response_excerpt FROM input i JOIN recorded r ON r.id = i.delivery_id
)`;

export const recordParams = (attempts: AttemptRecord[]) => [
  attempts.map((a) => a.deliveryId),
  attempts.map((a) => a.at),
  attempts.map((a) => a.statusCode),
  attempts.map((a) => a.durationMs),
  attempts.map((a) => a.error),
  attempts.map((a) => a.responseExcerpt),
  attempts.map((a) => a.status),
  attempts.map((a) => a.nextAttemptAt),
];

/** A delivery as an attempt would send it, without claiming it (what the API shows as `request_body`). */
const CONTEXT = `WITH one AS (SELECT * FROM webhook_deliveries WHERE id = $1 AND distribution_id = $2 AND project_id = $3)
${contextFrom('one')}`;

/** Distribution stats count at most this many of its newest deliveries. */
export const STATS_WINDOW = 100_000;

/** What TypeORM answers for an UPDATE … RETURNING: the rows and the count. */
type UpdateResult = [{ id: string }[], number];

export interface ClaimRow {
  id: string;
  project_id: string;
  created_at: Date;
  attempts_count: number;
  first_attempt_at: Date | null;
  manual: boolean;
  test: boolean;
  distribution_id: string;
  target_url: string;
  custom_headers: Record<string, string>;
  event_name: string | null;
  trigger: string;
  event_id: string | null;
  event_type: string;
  event_created_at: Date;
  entity_id: string;
  group_id: string;
  event_source: EventSource;
  data: string;
  secret: string | null;
  previous_secret: string | null;
  previous_expires_at: Date | null;
}

export function toContext(row: ClaimRow): AttemptContext {
  return {
    id: row.id,
    projectId: row.project_id,
    createdAt: row.created_at,
    attemptsCount: row.attempts_count,
    firstAttemptAt: row.first_attempt_at,
    manual: row.manual,
    test: row.test,
    distributionId: row.distribution_id,
    targetUrl: row.target_url,
    customHeaders: row.custom_headers,
    eventName: row.event_name,
    trigger: row.trigger,
    event: row.event_id
      ? { id: row.event_id, type: row.event_type, createdAt: row.event_created_at, entityId: row.entity_id, groupId: row.group_id, eventSource: row.event_source, data: row.data }
      : null,
    secret: row.secret ? { current: row.secret, previous: row.previous_secret, previousExpiresAt: row.previous_expires_at } : null,
  };
}

@Injectable()
export class WebhookDeliveryRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Relays up to `limit` events making up to `maxDeliveries` deliveries (at least one event); how many
   * were relayed, how many deliveries were made, and whether more may be waiting.
   */
  async relay(tx: Tx, limit: number, maxDeliveries: number): Promise<{ relayed: number; deliveries: number; more: boolean }> {
    const [row] = (await tx.query(RELAY, [limit, maxDeliveries])) as { relayed: number; deliveries: number; more: boolean }[];
    return row;
  }

  /** Claims these deliveries for an attempt each; per id, what the attempt needs, or when to come back. */
  async claimMany(ids: string[], leaseMs: number): Promise<(AttemptContext | NotClaimed)[]> {
    const rows = (await this.dataSource.query(CLAIM, [ids, leaseMs])) as ClaimRow[];
    const claimed = new Map(rows.map((row) => [row.id, toContext(row)]));
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

  /** Every PENDING delivery of a distribution becomes FAILED (it was disabled), locked in id order. */
  async failPending(tx: Tx, distributionId: string): Promise<void> {
    await tx.query(
      `UPDATE webhook_deliveries SET status = 'FAILED', next_attempt_at = NULL, lease_until = NULL
       WHERE id IN (SELECT id FROM webhook_deliveries WHERE distribution_id = $1 AND status = 'PENDING' ORDER BY id FOR UPDATE)`,
      [distributionId],
    );
  }

  /**
   * The PENDING deliveries of a distribution that is no longer ACTIVE wait without a due time, those asked
   * for by hand (test, redeliver, recover) too: a paused distribution sends nothing (issue 26). Left due,
   * every claim would read and pass over them in the due index, a cost that grows with the paused backlog
   * (bench/README.md).
   */
  async park(tx: Tx | null, distributionId: string): Promise<void> {
    await (tx ?? this.dataSource).query(`UPDATE webhook_deliveries SET next_attempt_at = NULL WHERE distribution_id = $1 AND status = 'PENDING'`, [distributionId]);
  }

  /** One more attempt now, outside the retry schedule (redeliver); null if no such delivery. */
  async redeliver(projectId: string, distributionId: string, id: string): Promise<WebhookDelivery | null> {
    const rows = (await this.dataSource.query(
      // A delivery still in its retry schedule keeps it (this attempt only comes early); a settled one gets
      // one attempt, whose failure settles it again.
      // Due now while the distribution is ACTIVE; otherwise parked until it is (DistributionsService.update).
      `UPDATE webhook_deliveries SET manual = (status <> 'PENDING' OR manual), status = 'PENDING', next_attempt_at = ${DUE_IF_ACTIVE}
       WHERE id = $1 AND distribution_id = $2 AND project_id = $3 RETURNING id`,
      [id, distributionId, projectId],
    )) as UpdateResult;
    return rows[0].length ? this.findOne(projectId, distributionId, id) : null;
  }

  async findOne(projectId: string, distributionId: string, id: string): Promise<WebhookDelivery | null> {
    return this.dataSource.getRepository(WebhookDelivery).findOneBy({ projectId, distributionId, id });
  }

  /** What an attempt of this delivery sends, read without claiming it; null if no such delivery. */
  async context(projectId: string, distributionId: string, id: string): Promise<AttemptContext | null> {
    const [row] = (await this.dataSource.query(CONTEXT, [id, distributionId, projectId])) as ClaimRow[];
    return row ? toContext(row) : null;
  }

  /**
   * A test delivery of a sample event, due now (parked while the distribution is not ACTIVE). Manual: one
   * attempt, whose failure leaves the delivery FAILED and the distribution as it was.
   */
  async insertTest(projectId: string, distributionId: string, trigger: string): Promise<WebhookDelivery> {
    const rows = (await this.dataSource.query(
      `INSERT INTO webhook_deliveries (id, project_id, distribution_id, event_id, event_type, next_attempt_at, manual, test)
       SELECT id, $1, $2, 'evtest_' || substr(id, 5), $3, ${DUE_IF_ACTIVE.replaceAll('webhook_deliveries.distribution_id', '$2')}, true, true
       FROM (SELECT 'whs_' || left(replace(gen_random_uuid()::text, '-', ''), 18) AS id) n
       RETURNING id`,
      [projectId, distributionId, trigger],
    )) as { id: string }[];
    return (await this.findOne(projectId, distributionId, rows[0].id))!;
  }

  /** The distribution's latest delivery with its latest attempt, and its deliveries of the last 24 hours by status. */
  async stats(distributionId: string): Promise<{ last: { id: string; status: DeliveryStatus; at: Date | null; status_code: number | null } | null; counts: Record<DeliveryStatus, number> }> {
    const [last] = (await this.dataSource.query(
      `SELECT d.id, d.status, a.at, a.status_code FROM webhook_deliveries d
       LEFT JOIN LATERAL (SELECT at, status_code FROM webhook_attempts WHERE delivery_id = d.id ORDER BY id DESC LIMIT 1) a ON true
       WHERE d.distribution_id = $1 ORDER BY d.seq DESC LIMIT 1`,
      [distributionId],
    )) as { id: string; status: DeliveryStatus; at: Date | null; status_code: number | null }[];
    // Among the newest STATS_WINDOW deliveries (the (distribution, seq) index read backwards, so that a
    // distribution with years of history costs no more), those created in the last 24 hours.
    const rows = (await this.dataSource.query(
      `SELECT status, count(*)::int AS n FROM (
         SELECT status, created_at FROM webhook_deliveries WHERE distribution_id = $1 ORDER BY seq DESC LIMIT $2
       ) newest WHERE created_at > now() - interval '24 hours' GROUP BY status`,
      [distributionId, STATS_WINDOW],
    )) as { status: DeliveryStatus; n: number }[];
    const counts = { PENDING: 0, SUCCEEDED: 0, FAILED: 0 };
    for (const row of rows) counts[row.status] = row.n;
    return { last: last ?? null, counts };
  }

  /** Newest first after the keyset position `beforeSeq`. */
  async list(projectId: string, distributionId: string, status: DeliveryStatus | undefined, beforeSeq: string | null, limit: number): Promise<WebhookDelivery[]> {
    const query = this.dataSource
      .getRepository(WebhookDelivery)
      .createQueryBuilder('d')
      .where('d.distribution_id = :distributionId AND d.project_id = :projectId', { distributionId, projectId })
      .orderBy('d.seq', 'DESC')
      .limit(limit);
    if (status !== undefined) query.andWhere('d.status = :status', { status });
    if (beforeSeq !== null) query.andWhere('d.seq < :beforeSeq', { beforeSeq });
    return query.getMany();
  }

  /** The attempts of these deliveries, oldest first. */
  async attemptsOf(deliveryIds: string[]): Promise<WebhookAttempt[]> {
    if (!deliveryIds.length) return [];
    return this.dataSource
      .getRepository(WebhookAttempt)
      .createQueryBuilder('a')
      .where('a.delivery_id = ANY(:deliveryIds)', { deliveryIds })
      .orderBy('a.delivery_id')
      .addOrderBy('a.id')
      .getMany();
  }
}
