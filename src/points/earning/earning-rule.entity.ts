import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from 'typeorm';
import { Campaign, type ExpirationRules } from '../../campaigns/campaign.entity.js';

export const EARNING_EVENTS = ['order.paid'] as const;
export type EarningEvent = (typeof EARNING_EVENTS)[number];

/** How many points a rule gives: a fixed number, or so many for every `every` minor units of the order amount. */
export type EarningLoyalty =
  | { type: 'FIXED'; points: number }
  | { type: 'PROPORTIONAL'; calculation_type: 'ORDER_AMOUNT'; order: { amount: { every: number; points: number } } };

/** Points earned under the rule wait this long as a pending entry before they reach the balance. */
export interface PendingPointsRule {
  period_type: 'DAY';
  period_value: number;
}

/**
 * An earning rule (`ern_`) of a loyalty campaign: which event earns how many points, when. Pending entries
 * and ledger transactions copy what they need of it, so a rule can be changed or deleted afterwards.
 */
@Entity({ name: 'earning_rules' })
@Index('idx_earning_rules_campaign_created', ['campaignId', 'createdAt', 'id'])
@Index('idx_earning_rules_project_event_active', ['projectId', 'event'], { where: '"active"' })
export class EarningRule {
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
  event: EarningEvent;

  @Column({ type: 'jsonb' })
  loyalty: EarningLoyalty;

  @Column({ name: 'pending_points', type: 'jsonb', nullable: true })
  pendingPoints: PendingPointsRule | null;

  /** `source.banner`: the rule's name. */
  @Column({ type: 'text', nullable: true })
  banner: string | null;

  /** When the points this rule credits expire; null: the campaign's rules apply. */
  @Column({ name: 'expiration_rules', type: 'jsonb', nullable: true })
  expirationRules: ExpirationRules | null;

  @Column({ type: 'boolean', default: true })
  active: boolean;

  @Column({ name: 'start_date', type: 'timestamptz', precision: 3, nullable: true })
  startDate: Date | null;

  @Column({ name: 'expiration_date', type: 'timestamptz', precision: 3, nullable: true })
  expirationDate: Date | null;

  @Column({ type: 'jsonb', default: {} })
  metadata: Record<string, unknown>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', precision: 3, nullable: true })
  updatedAt: Date | null;
}
