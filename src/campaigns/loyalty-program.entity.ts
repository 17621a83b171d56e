import { Column, CreateDateColumn, Entity, Index, JoinColumn, OneToOne, PrimaryColumn, type Relation } from 'typeorm';
import { Campaign } from './campaign.entity.js';

/**
 * The v2 program (`lprg_`) of a loyalty campaign: exactly one per campaign (unique campaign_id), made in
 * the same transaction. Name and status follow the campaign, so they are not stored twice.
 */
@Entity({ name: 'loyalty_programs' })
@Index('idx_loyalty_programs_project_created', ['projectId', 'createdAt', 'id'])
export class LoyaltyProgram {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ name: 'project_id', type: 'text' })
  projectId: string;

  @Column({ name: 'campaign_id', type: 'text' })
  campaignId: string;

  @OneToOne(() => Campaign, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'campaign_id' })
  campaign?: Relation<Campaign>;

  @Column({ type: 'jsonb', default: {} })
  metadata: Record<string, unknown>;

  /** Millisecond precision, so a keyset position read back into a JS Date matches the row exactly. */
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;
}
