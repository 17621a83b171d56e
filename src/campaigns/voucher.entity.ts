import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from 'typeorm';
import { Campaign } from './campaign.entity.js';

/**
 * A loyalty card (`v_`): a voucher of a loyalty campaign. Codes are unique per project by constraint,
 * which is what makes concurrent generation safe: a colliding code is skipped and drawn again.
 */
@Entity({ name: 'vouchers' })
@Index('uq_vouchers_project_code', ['projectId', 'code'], { unique: true })
@Index('idx_vouchers_campaign', ['campaignId'])
export class Voucher {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ name: 'project_id', type: 'text' })
  projectId: string;

  @Column({ name: 'campaign_id', type: 'text' })
  campaignId: string;

  @ManyToOne(() => Campaign, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'campaign_id' })
  campaign?: Relation<Campaign>;

  @Column({ type: 'text' })
  code: string;

  @Column({ type: 'text', default: 'LOYALTY_CARD' })
  type: 'LOYALTY_CARD';

  /** Points the card started with (the campaign's `voucher.loyalty_card.points`). */
  @Column({ name: 'initial_points', type: 'integer', default: 0 })
  initialPoints: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
