import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from 'typeorm';
import { LoyaltyProgram } from '../campaigns/loyalty-program.entity.js';
import { Customer } from '../customers/customer.entity.js';

export const MEMBER_STATUSES = ['ACTIVE', 'INACTIVE', 'DELETED'] as const;
export type MemberStatus = (typeof MEMBER_STATUSES)[number];

/**
 * A customer's membership (`lmbr_`) of a loyalty program. Deleted members stay as rows (status DELETED)
 * so their cards and points are never lost, but they are left out of every index below: the list never
 * shows them, and the customer may enrol again.
 *
 * The four partial indexes are the member list's access paths: each allowed order (created_at, status,
 * customer_id, either direction) and each filter is an index range scan within one program.
 */
@Entity({ name: 'members' })
@Index('uq_members_program_customer', ['programId', 'customerId'], { unique: true, where: `"status" <> 'DELETED'` })
@Index('idx_members_program_created', ['programId', 'createdAt', 'id'], { where: `"status" <> 'DELETED'` })
@Index('idx_members_program_status_created', ['programId', 'status', 'createdAt', 'id'], { where: `"status" <> 'DELETED'` })
@Index('idx_members_program_status_customer', ['programId', 'status', 'customerId'], { where: `"status" <> 'DELETED'` })
export class Member {
  /** Byte order (COLLATE "C") for id and customer_id: list order and keyset comparisons must not depend on the server's locale. */
  @PrimaryColumn({ type: 'text', collation: 'C' })
  id: string;

  @Column({ name: 'project_id', type: 'text' })
  projectId: string;

  @Column({ name: 'program_id', type: 'text' })
  programId: string;

  @ManyToOne(() => LoyaltyProgram, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'program_id' })
  program?: Relation<LoyaltyProgram>;

  @Column({ name: 'customer_id', type: 'text', collation: 'C' })
  customerId: string;

  @ManyToOne(() => Customer)
  @JoinColumn({ name: 'customer_id' })
  customer?: Relation<Customer>;

  @Column({ type: 'text', default: 'ACTIVE' })
  status: MemberStatus;

  @Column({ type: 'jsonb', default: {} })
  metadata: Record<string, unknown>;

  /** Millisecond precision, so a keyset position read back into a JS Date matches the row exactly. */
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', precision: 3, nullable: true })
  updatedAt: Date | null;
}
