import { Check, Column, CreateDateColumn, Entity, ForeignKey, Generated, Index, PrimaryColumn } from 'typeorm';

/**
 * A reward offered in a loyalty campaign (`rewa_` + 24 base62), at a price in points (`points`; null for a
 * COIN reward, whose price is the points the member chooses to spend). A reward is offered once per campaign
 * (unique (reward, campaign): the 409 of a second one; concurrent creates in one campaign take turns). The campaign's permanent
 * deletion takes its assignments with it (cascade); a reward cannot be deleted while it is offered in a live
 * campaign (foreign key without cascade, and the 400 `resource_in_use` of the service). The rewards module
 * owns the table (RewardAssignmentRepository is its only writer).
 */
@Entity({ name: 'reward_assignments' })
@Index('uq_reward_assignments_reward_campaign', ['rewardId', 'campaignId'], { unique: true })
@Index('idx_reward_assignments_campaign_seq', ['campaignId', 'seq'])
@Check('chk_reward_assignments_points', `"points" IS NULL OR "points" >= 1`)
export class RewardAssignment {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'pk_reward_assignments' })
  id: string;

  @Column({ name: 'project_id', type: 'text' })
  projectId: string;

  @Column({ name: 'reward_id', type: 'text' })
  @ForeignKey('Reward', { name: 'fk_reward_assignments_reward' })
  rewardId: string;

  @Column({ name: 'campaign_id', type: 'text' })
  @ForeignKey('Campaign', { onDelete: 'CASCADE', name: 'fk_reward_assignments_campaign' })
  campaignId: string;

  /** The price in points; null for a COIN reward. */
  @Column({ type: 'integer', nullable: true })
  points: number | null;

  /** The lists' order: the order of creation, an array's items in the order sent (they share `created_at`). */
  @Column({ type: 'bigint' })
  @Generated('increment')
  seq: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', precision: 3, nullable: true })
  updatedAt: Date | null;
}
