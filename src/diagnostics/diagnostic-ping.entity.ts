import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

export const PING_STATUSES = ['QUEUED', 'DONE'] as const;
export type PingStatus = (typeof PING_STATUSES)[number];

/** A round trip through the queue: written by the API, completed by the worker. */
@Entity({ name: 'diagnostic_pings' })
@Index('idx_diagnostic_pings_project_created', ['projectId', 'createdAt'])
@Index('idx_diagnostic_pings_queued', ['createdAt'], { where: `"status" = 'QUEUED'` })
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
}
