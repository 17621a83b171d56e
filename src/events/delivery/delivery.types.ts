import type { EventSource } from '../event.entity.js';
import type { DeliveryStatus } from './webhook-delivery.entity.js';

/** The event a delivery sends, as a claim reads it: without its payload, but with its stored size. */
export interface EventHead {
  id: string;
  type: string;
  createdAt: Date;
  entityId: string;
  groupId: string;
  eventSource: EventSource;
  /** The payload's size as PostgreSQL stores it (`pg_column_size`: compressed, if it is), read without the payload. */
  storedBytes: number;
  /** The payload (JSON text, `bytes` long), when the dispatcher's claim read it with the delivery (a small event). */
  inline?: { data: string; bytes: number };
}

/**
 * A delivery as an attempt reads it, with its event as `E`: a claim reads the event without its payload
 * (ClaimedDelivery), which is read apart just before the request (AttemptContext).
 */
export interface DeliveryContext<E> {
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
  /** Opened (DataCipher). */
  customHeaders: Record<string, string>;
  eventName: string | null;
  trigger: string;
  event: E | null;
  /** Opened (DataCipher). Null: the project has none yet (the attempt makes it). */
  secret: { current: string; previous: string | null; previousExpiresAt: Date | null } | null;
  /** Why the secret or the headers could not be opened (a key missing): the attempt is recorded as failed. */
  unreadable?: string;
  /** Claims in a row whose payload could not be read (reset by every recorded attempt). */
  loadFailures: number;
  /** The claim's lease, as stored: giving the delivery back checks it is still this claim's. */
  leaseUntil: Date | null;
}

/** What a claim reads: everything but the event's payload. */
export type ClaimedDelivery = DeliveryContext<EventHead>;

/**
 * Everything one attempt needs. `data` is JSON text, as the events table holds it (the envelope embeds it as
 * it is). The claim's bookkeeping (`loadFailures`, `leaseUntil`) stays with the ClaimedDelivery.
 */
export type AttemptContext = Omit<DeliveryContext<Omit<EventHead, 'storedBytes' | 'inline'> & { data: string }>, 'loadFailures' | 'leaseUntil'>;

/** The claimed delivery with its event's payload. */
export function withPayload(delivery: ClaimedDelivery, data: string): AttemptContext {
  return { ...delivery, event: delivery.event && { ...delivery.event, data } };
}

/** What a delivery job carries (the payload of JobName.DeliverWebhook, see DeliveryJobs). */
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
