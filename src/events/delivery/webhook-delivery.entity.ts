import { Column, CreateDateColumn, Entity, Generated, Index, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from 'typeorm';
import { Distribution } from '../distributions/distribution.entity.js';

export const DELIVERY_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * One event sent to one distribution (`whs_…`, also the envelope's `id` and the `webhook-id` header, the
 * same on every attempt). PENDING until a 2xx (SUCCEEDED) or until its retries ran out, the target answered
 * 410 or the distribution was disabled (FAILED).
 *
 * Unique (distribution, event): relaying an event twice cannot deliver it twice.
 * The partial index on (`project_id`, `next_attempt_at`) holds PENDING rows only, for the dispatcher's claim
 * (which takes projects in turn) and the count of PENDING deliveries; the one on (`distribution_id`,
 * `created_at`, `id`) FAILED rows only, for a recover, which stops at its `since`.
 */
@Entity({ name: 'webhook_deliveries' })
@Index('uq_webhook_deliveries_event', ['distributionId', 'eventId'], { unique: true })
@Index('idx_webhook_deliveries_distribution_seq', ['distributionId', 'seq'])
@Index('idx_webhook_deliveries_distribution_status_seq', ['distributionId', 'status', 'seq'])
@Index('idx_webhook_deliveries_project_due', ['projectId', 'nextAttemptAt'], { where: `"status" = 'PENDING'` })
@Index('idx_webhook_deliveries_failed_created', ['distributionId', 'createdAt', 'id'], { where: `"status" = 'FAILED'` })
export class WebhookDelivery {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ type: 'bigint' })
  @Generated('increment')
  seq: string;

  @Column({ name: 'project_id', type: 'text' })
  projectId: string;

  @Column({ name: 'distribution_id', type: 'text' })
  distributionId: string;

  @ManyToOne(() => Distribution, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'distribution_id' })
  distribution?: Relation<Distribution>;

  @Column({ name: 'event_id', type: 'text' })
  eventId: string;

  @Column({ name: 'event_type', type: 'text' })
  eventType: string;

  @Column({ type: 'text', default: 'PENDING' })
  status: DeliveryStatus;

  @Column({ name: 'attempts_count', type: 'integer', default: 0 })
  attemptsCount: number;

  /** The retry schedule counts from the first attempt. */
  @Column({ name: 'first_attempt_at', type: 'timestamptz', precision: 3, nullable: true })
  firstAttemptAt: Date | null;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', precision: 3, nullable: true })
  nextAttemptAt: Date | null;

  /** Set by redeliver and recover: the next attempt is one more, outside the retry schedule. */
  @Column({ type: 'boolean', default: false })
  manual: boolean;

  /** A sample event sent by `POST /v1/distributions/{id}/test` (no row in `events`; `data.test` is true). */
  @Column({ type: 'boolean', default: false })
  test: boolean;

  /**
   * Claims in a row whose event payload could not be read; at the third, the attempt is recorded as failed
   * (DeliveryDispatcher). Every recorded attempt resets it.
   */
  @Column({ name: 'load_failures', type: 'integer', default: 0 })
  loadFailures: number;

  /** An attempt in progress holds the delivery until then, so two workers never send it at the same time. */
  @Column({ name: 'lease_until', type: 'timestamptz', precision: 3, nullable: true })
  leaseUntil: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'delivered_at', type: 'timestamptz', precision: 3, nullable: true })
  deliveredAt: Date | null;
}

/** One HTTP attempt of a delivery. */
@Entity({ name: 'webhook_attempts' })
@Index('idx_webhook_attempts_delivery', ['deliveryId', 'id'])
export class WebhookAttempt {
  @PrimaryColumn({ type: 'bigint' })
  @Generated('increment')
  id: string;

  @Column({ name: 'delivery_id', type: 'text' })
  deliveryId: string;

  @ManyToOne(() => WebhookDelivery, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'delivery_id' })
  delivery?: Relation<WebhookDelivery>;

  @Column({ type: 'timestamptz', precision: 3 })
  at: Date;

  @Column({ name: 'status_code', type: 'integer', nullable: true })
  statusCode: number | null;

  @Column({ name: 'duration_ms', type: 'integer' })
  durationMs: number;

  @Column({ type: 'text', nullable: true })
  error: string | null;

  /** The first 1 KB of the answer's body. */
  @Column({ name: 'response_excerpt', type: 'text', nullable: true })
  responseExcerpt: string | null;
}
