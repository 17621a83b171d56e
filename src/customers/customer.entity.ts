import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

export interface CustomerAddress {
  city?: string | null;
  state?: string | null;
  line_1?: string | null;
  line_2?: string | null;
  country?: string | null;
  postal_code?: string | null;
}

/**
 * A customer (`cust_`) of a project. `source_id` is the caller's own identifier: unique per project when
 * given, which is what makes POST /v1/customers an upsert and enrolment by source id race-free.
 */
@Entity({ name: 'customers' })
@Index('uq_customers_project_source', ['projectId', 'sourceId'], { unique: true, where: '"source_id" IS NOT NULL' })
export class Customer {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ name: 'project_id', type: 'text' })
  projectId: string;

  @Column({ name: 'source_id', type: 'text', nullable: true })
  sourceId: string | null;

  @Column({ type: 'text', nullable: true })
  name: string | null;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'text', nullable: true })
  email: string | null;

  @Column({ type: 'text', nullable: true })
  phone: string | null;

  /** `YYYY-MM-DD`, kept as given (a calendar date has no time zone). */
  @Column({ type: 'text', nullable: true })
  birthdate: string | null;

  @Column({ type: 'jsonb', nullable: true })
  address: CustomerAddress | null;

  @Column({ type: 'jsonb', default: {} })
  metadata: Record<string, unknown>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', precision: 3, nullable: true })
  updatedAt: Date | null;
}
