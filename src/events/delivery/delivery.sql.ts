import { type DataCipher, UnreadableValueError } from '../../common/crypto/data-cipher.js';
import type { EventSource } from '../event.entity.js';
import { openHeaders, secretContext } from '../secrets/sealed-values.js';
import type { ClaimedDelivery } from './delivery.types.js';

/**
 * Everything an attempt needs, for the deliveries of the CTE `source`, but the event's payload: its stored
 * size instead (`pg_column_size`, read from the row's TOAST pointer without reading the payload), so that a
 * claim reads a few hundred bytes per delivery however large its event is. The payload is read apart
 * (EventPayloadRepository), in bounded loads; `payload: true` adds it as `data` (the API's one delivery).
 *
 * `inline` (the dispatcher's claim) adds the payloads of small events, those stored in at most
 * `inline.maxStored` bytes, as `inline_data` (and `inline_bytes`), while their texts together, in id order,
 * stay within `inline.room` bytes (the byte budget's room): a delivery of a small event is then sent without
 * a load of its own (the load's round trip held its slot, issue 40), and a large one is still read apart. The
 * stored bound keeps what a claim reads small whatever the events (at most the claim's limit times it, as
 * stored); the room keeps the texts within the budget, as the loads do. The size is tested inside a CASE,
 * which PostgreSQL evaluates lazily: as a WHERE of the lateral subquery, the planner pulled it up into a
 * join filter and read every event's text before testing its size (a huge event timed the claim out).
 * OFFSET 0 keeps the subquery apart, so that each text is read once for both its size and its value.
 */
export const contextFrom = (source: string, { payload = false, inline }: { payload?: boolean; inline?: { maxStored: string; room: string } } = {}) => `
SELECT c.id, c.project_id, c.created_at, c.attempts_count, c.first_attempt_at, c.manual, c.test, c.load_failures, c.lease_until,
       dist.id AS distribution_id, dist.target_url, dist.custom_headers, dist.event_name, dist.trigger,
       ev.id AS event_id, ev.type AS event_type, ev.created_at AS event_created_at, ev.entity_id, ev.group_id, ev.event_source,
       pg_column_size(ev.data) AS event_stored_bytes${payload ? ', ev.data::text AS data' : ''},${
         inline
           ? `
       CASE WHEN sum(octet_length(inl.text)) OVER (ORDER BY c.id ROWS UNBOUNDED PRECEDING) <= ${inline.room} THEN inl.text END AS inline_data,
       CASE WHEN sum(octet_length(inl.text)) OVER (ORDER BY c.id ROWS UNBOUNDED PRECEDING) <= ${inline.room} THEN octet_length(inl.text) END AS inline_bytes,`
           : ''
       }
       s.secret, s.previous_secret, s.previous_expires_at
FROM ${source} c
JOIN distributions dist ON dist.id = c.distribution_id
LEFT JOIN events ev ON ev.id = c.event_id
LEFT JOIN webhook_secrets s ON s.project_id = c.project_id${
  inline
    ? `
LEFT JOIN LATERAL (SELECT CASE WHEN pg_column_size(ev.data) <= ${inline.maxStored} THEN ev.data::text END AS text OFFSET 0) inl ON true`
    : ''
}`;

/**
 * The PENDING deliveries of a distribution that is no longer ACTIVE wait without a due time, those asked
 * for by hand (test, redeliver, recover) too: a paused distribution sends nothing (issue 26). Left due,
 * every claim would read and pass over them in the due index, a cost that grows with the paused backlog
 * (bench/README.md). Run by the API (a distribution paused by hand) and the worker (paused by its last
 * failed retry).
 */
export const PARK = `UPDATE webhook_deliveries SET next_attempt_at = NULL WHERE distribution_id = $1 AND status = 'PENDING'`;

/** A row of `contextFrom` (`data` only with `payload: true`). */
export interface ClaimRow {
  id: string;
  project_id: string;
  created_at: Date;
  attempts_count: number;
  first_attempt_at: Date | null;
  manual: boolean;
  test: boolean;
  load_failures: number;
  lease_until: Date | null;
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
  event_stored_bytes: number;
  data?: string;
  /** With `inline`: the payload of a small event, and its length in bytes (null for the others). */
  inline_data?: string | null;
  inline_bytes?: number | null;
  secret: string | null;
  previous_secret: string | null;
  previous_expires_at: Date | null;
}

/**
 * A row of `contextFrom` → what an attempt needs (but the event's payload, read apart: `withPayload`): the
 * one place where a delivery's secrets and custom headers are opened (stored sealed under
 * DATA_ENCRYPTION_KEY, or plain: DataCipher). A value no configured key opens does not fail the other rows
 * read with it: the context says so (`unreadable`), and the attempt is recorded as a failure
 * (webhook-delivery.service.ts), so the retry schedule applies.
 */
export function toContext(row: ClaimRow, cipher: DataCipher): ClaimedDelivery {
  let customHeaders: Record<string, string> = {};
  let secret: ClaimedDelivery['secret'] = null;
  let unreadable: string | undefined;
  try {
    customHeaders = openHeaders(cipher, row.distribution_id, row.custom_headers);
    const context = secretContext(row.project_id);
    secret = row.secret ? { current: cipher.open(row.secret, context), previous: row.previous_secret && cipher.open(row.previous_secret, context), previousExpiresAt: row.previous_expires_at } : null;
  } catch (error) {
    if (!(error instanceof UnreadableValueError)) throw error;
    unreadable = 'the webhook secret or custom headers cannot be decrypted with the configured keys (DATA_ENCRYPTION_KEY)';
  }
  return {
    id: row.id,
    projectId: row.project_id,
    createdAt: row.created_at,
    attemptsCount: row.attempts_count,
    firstAttemptAt: row.first_attempt_at,
    manual: row.manual,
    test: row.test,
    loadFailures: row.load_failures,
    leaseUntil: row.lease_until,
    distributionId: row.distribution_id,
    targetUrl: row.target_url,
    customHeaders,
    eventName: row.event_name,
    trigger: row.trigger,
    event: row.event_id
      ? {
          id: row.event_id,
          type: row.event_type,
          createdAt: row.event_created_at,
          entityId: row.entity_id,
          groupId: row.group_id,
          eventSource: row.event_source,
          storedBytes: row.event_stored_bytes,
          ...(typeof row.inline_data === 'string' ? { inline: { data: row.inline_data, bytes: Number(row.inline_bytes) } } : {}),
        }
      : null,
    secret,
    ...(unreadable ? { unreadable } : {}),
  };
}
