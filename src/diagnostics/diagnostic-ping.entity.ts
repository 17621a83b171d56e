import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/** FAILED: the worker's sweep gave the ping up (DIAGNOSTIC_PING_MAX_REQUEUES); a worker never sets it. */
export const PING_STATUSES = ['QUEUED', 'DONE', 'FAILED'] as const;
export type PingStatus = (typeof PING_STATUSES)[number];

/**
 * Jobs the sweep enqueues again for one ping before it gives it up (FAILED): each job has its own attempts
 * (JOB_OPTIONS), so a ping whose jobs failed this often fails for a reason another job would not change.
 */
export const DIAGNOSTIC_PING_MAX_REQUEUES = 3;

/** A round trip through the queue: written by the API, completed by the worker. */
@Entity({ name: 'diagnostic_pings' })
@Index('idx_diagnostic_pings_project_created', ['projectId', 'createdAt'])
// The sweep's read: per project, QUEUED pings by when they were last enqueued (coalesce(swept_at, created_at)).
// An expression index, which TypeORM cannot declare: made by the migration DiagnosticPingRequeues.
@Index('idx_diagnostic_pings_queued', { synchronize: false })
export class DiagnosticPing {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ name: 'project_id', type: 'text' })
  projectId: string;

  @Column({ type: 'text' })
  status: PingStatus;

  @Column({ type: 'text', nullable: true })
  note: string | null;

  /** Simulated work the worker does before completing the ping (to observe graceful shutdown). */
  @Column({ name: 'work_ms', type: 'integer', default: 0 })
  workMs: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'processed_at', type: 'timestamptz', nullable: true })
  processedAt: Date | null;

  @Column({ name: 'processed_by', type: 'text', nullable: true })
  processedBy: string | null;

  /** When the sweep last took the ping up (null: never); it is due again 5 s later, oldest first. */
  @Column({ name: 'swept_at', type: 'timestamptz', nullable: true })
  sweptAt: Date | null;

  /** Jobs the sweep enqueued again for it (none was left to run); at DIAGNOSTIC_PING_MAX_REQUEUES it is given up. */
  @Column({ name: 'requeue_count', type: 'integer', default: 0 })
  requeueCount: number;
}
