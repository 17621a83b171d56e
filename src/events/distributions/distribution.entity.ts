import { Column, CreateDateColumn, Entity, Generated, Index, PrimaryColumn } from 'typeorm';
import type { EventType } from '../event-types.js';

export const DISTRIBUTION_STATUSES = ['ACTIVE', 'PAUSED', 'DISABLED'] as const;
export type DistributionStatus = (typeof DISTRIBUTION_STATUSES)[number];

/**
 * A webhook distribution (`distr_…`): events of one trigger type go to one target URL. ACTIVE ones get
 * deliveries; PAUSED (after the last retry failed, or by hand) and DISABLED (the target answered 410) get
 * none until a PUT makes them ACTIVE again.
 *
 * The relay looks up the ACTIVE distributions of an event's (project, type) in the partial index; the list
 * pages newest first by `seq`.
 */
@Entity({ name: 'distributions' })
@Index('idx_distributions_project_seq', ['projectId', 'seq'])
@Index('idx_distributions_active_trigger', ['projectId', 'trigger'], { where: `"status" = 'ACTIVE'` })
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
}
