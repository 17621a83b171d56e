import type { EventSource } from '../event.entity.js';
import type { DeliveryStatus } from './webhook-delivery.entity.js';

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
  /** Opened (DataCipher). */
  customHeaders: Record<string, string>;
  eventName: string | null;
  trigger: string;
  /** `data` is JSON text, as the events table holds it (the envelope embeds it as it is). */
  event: { id: string; type: string; createdAt: Date; entityId: string; groupId: string; eventSource: EventSource; data: string } | null;
  /** Opened (DataCipher). Null: the project has none yet (the attempt makes it). */
  secret: { current: string; previous: string | null; previousExpiresAt: Date | null } | null;
  /** Why the secret or the headers could not be opened (a key missing): the attempt is recorded as failed. */
  unreadable?: string;
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
