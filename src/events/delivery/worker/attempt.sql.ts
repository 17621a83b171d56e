import type { AttemptRecord } from '../delivery.types.js';

/**
 * A condition that is always true and makes the statement's own transaction commit without waiting for
 * the WAL flush (`synchronous_commit` off, for this transaction only). Used by the attempt's bookkeeping
 * (the lease and the attempt's record), never by the relay: losing such a commit in a server crash only
 * means the delivery is sent once more, with the same `webhook-id`, which at-least-once delivery allows;
 * waiting for two disk flushes per delivery capped throughput far below what the receiver can take.
 */
export const NO_FLUSH_WAIT = `(SELECT set_config('synchronous_commit', 'off', true)) IS NOT NULL`;

/**
 * Attempts ($1–$8, one array per column) and their deliveries' new states, as CTEs ending in `recorded`.
 * The delivery's lease ends with its record, and its count of failed loads starts again. The deliveries are found by primary key (`= ANY($1)`): joined
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
    next_attempt_at = i.next_attempt_at, delivered_at = CASE WHEN i.status = 'SUCCEEDED' THEN now() END, lease_until = NULL, manual = false,
    load_failures = 0
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
