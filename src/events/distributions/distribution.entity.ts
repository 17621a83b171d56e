import { Column, CreateDateColumn, Entity, Generated, Index, PrimaryColumn } from 'typeorm';
import type { EventType } from '../event-catalogue.js';

export const DISTRIBUTION_STATUSES = ['ACTIVE', 'PAUSED', 'DISABLED'] as const;
export type DistributionStatus = (typeof DISTRIBUTION_STATUSES)[number];

/**
 * A webhook distribution (`distr_…`): events of one trigger type go to one target URL. ACTIVE ones get
 * deliveries; PAUSED (after the last retry failed, or by hand) and DISABLED (the target answered 410) get
 * none until a PUT makes them ACTIVE again.
 *
 * The relay looks up the ACTIVE distributions of an event's (project, type) in the partial index; the list
 * pages newest first by `seq`.
 *
 * Work the API asks for and the worker does in batches (WebhookHousekeeping), recorded on the row: status
 * `DELETED` (in no API answer, counted against no limit: its deliveries are deleted, then the row),
 * a recover (`recover_since`, asked at `recover_requested_at`) and a resume (`resume_requested_at`). The
 * partial index holds the rows with such work.
 */
@Entity({ name: 'distributions' })
@Index('idx_distributions_project_seq', ['projectId', 'seq'])
@Index('idx_distributions_active_trigger', ['projectId', 'trigger'], { where: `"status" = 'ACTIVE'` })
@Index('idx_distributions_pending_work', ['id'], { where: `"status" = 'DELETED' OR "recover_requested_at" IS NOT NULL OR "resume_requested_at" IS NOT NULL` })
export class Distribution {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ type: 'bigint' })
  @Generated('increment')
  seq: string;

  @Column({ name: 'project_id', type: 'text' })
  projectId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  trigger: EventType;

  /** Sent as the envelope's `type`; null: the trigger. */
  @Column({ name: 'event_name', type: 'text', nullable: true })
  eventName: string | null;

  @Column({ name: 'target_url', type: 'text' })
  targetUrl: string;

  @Column({ name: 'custom_headers', type: 'jsonb', default: {} })
  customHeaders: Record<string, string>;

  @Column({ type: 'jsonb', default: {} })
  metadata: Record<string, unknown>;

  @Column({ type: 'text', default: 'ACTIVE' })
  status: DistributionStatus;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', precision: 3, nullable: true })
  updatedAt: Date | null;

  @Column({ name: 'recover_since', type: 'timestamptz', precision: 3, nullable: true, select: false })
  recoverSince?: Date | null;

  @Column({ name: 'recover_requested_at', type: 'timestamptz', nullable: true, select: false })
  recoverRequestedAt?: Date | null;

  @Column({ name: 'resume_requested_at', type: 'timestamptz', nullable: true, select: false })
  resumeRequestedAt?: Date | null;
}
