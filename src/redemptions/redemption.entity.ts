import { Check, Column, CreateDateColumn, Entity, ForeignKey, Generated, Index, PrimaryColumn } from 'typeorm';
import { BIGINT_AS_NUMBER } from '../database/bigint-as-number.js';

/** A redemption (`r_…`) or the rollback of one (`rr_…`): Voucherify's `redemption` and `redemption_rollback`. */
export type RedemptionObject = 'redemption' | 'redemption_rollback';
export type RedemptionStatus = 'SUCCEEDED' | 'ROLLED_BACK';

/** A bucket a redemption drained, how many points it gave (what the rollback gives back to it) and its last day. */
export interface DrainedBucket {
  id: string;
  points: number;
  expiresAt: string | null;
}

/** What the answers show that the row does not hold in columns, as it was when the redemption was made. */
export interface RedemptionSnapshot {
  /** The customer (Voucherify's `customer` object), or null for a card without a holder. */
  customer: Record<string, unknown> | null;
  /** The card after the redemption (or the rollback), as the v1 voucher object shows it. */
  voucher: Record<string, unknown>;
  /** The reward with its assignment id (and, for a CAMPAIGN reward, the card credited; for MATERIAL, the product). */
  reward: Record<string, unknown>;
  /** COIN: the order with its discount; else null. */
  order: Record<string, unknown> | null;
  /** Who made it: Voucherify's `channel` (the application key). */
  channel: { channel_id: string; channel_type: 'API' };
}

/**
 * Redemptions of rewards with a loyalty card and their rollbacks (issue 38), one table, one owner (the
 * redemptions module; RedemptionRepository is its only writer). A rollback's row names its redemption
 * (`redemption_id`), unique: a redemption is rolled back once, whatever the concurrency (the card's lock
 * orders the rollbacks; the index is the last guard). `buckets` holds what the redemption drained, so that the
 * rollback gives the same points back to the same buckets. `target_card_id`/`target_points`: a CAMPAIGN
 * (LOYALTY_PROGRAM) reward's credit, taken back by the rollback. A reward without a stock counts its
 * `redeemed` from its SUCCEEDED redemptions (`idx_redemptions_reward_succeeded`: RewardRepository's `redeemedSql`).
 */
@Entity({ name: 'redemptions' })
@Index('uq_redemptions_rollback_of', ['redemptionId'], { unique: true, where: `"redemption_id" IS NOT NULL` })
@Index('idx_redemptions_project_seq', ['projectId', 'seq'])
@Index('idx_redemptions_card_seq', ['voucherId', 'seq'])
@Index('idx_redemptions_reward_succeeded', ['projectId', 'rewardId'], { where: `"object" = 'redemption' AND "status" = 'SUCCEEDED'` })
@Check('chk_redemptions_object', `"object" IN ('redemption', 'redemption_rollback')`)
@Check('chk_redemptions_status', `"status" IN ('SUCCEEDED', 'ROLLED_BACK')`)
export class Redemption {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'pk_redemptions' })
  id: string;

  @Column({ name: 'project_id', type: 'text' })
  projectId: string;

  @Column({ type: 'text' })
  object: RedemptionObject;

  /** A rollback: the redemption it undoes; null for a redemption. */
  @Column({ name: 'redemption_id', type: 'text', nullable: true })
  redemptionId: string | null;

  @Column({ type: 'text' })
  status: RedemptionStatus;

  /** The card redeemed with (a rollback: the same card). */
  @Column({ name: 'voucher_id', type: 'text' })
  @ForeignKey('LoyaltyCard', { onDelete: 'CASCADE', name: 'fk_redemptions_voucher' })
  voucherId: string;

  @Column({ name: 'campaign_id', type: 'text' })
  campaignId: string;

  @Column({ name: 'customer_id', type: 'text', nullable: true })
  customerId: string | null;

  @Column({ name: 'reward_id', type: 'text' })
  rewardId: string;

  @Column({ name: 'assignment_id', type: 'text' })
  assignmentId: string;

  /** Points spent (a rollback: the negative of its redemption's). */
  @Column({ type: 'bigint', transformer: BIGINT_AS_NUMBER })
  points: number;

  @Column({ type: 'jsonb', default: [] })
  buckets: DrainedBucket[];

  @Column({ name: 'target_card_id', type: 'text', nullable: true })
  targetCardId: string | null;

  @Column({ name: 'target_points', type: 'bigint', nullable: true, transformer: BIGINT_AS_NUMBER })
  targetPoints: number | null;

  @Column({ name: 'order_id', type: 'text', nullable: true })
  orderId: string | null;

  @Column({ name: 'tracking_id', type: 'text', nullable: true })
  trackingId: string | null;

  @Column({ type: 'text', nullable: true })
  reason: string | null;

  @Column({ type: 'jsonb', nullable: true })
  metadata: Record<string, unknown> | null;

  /** The ledger row it wrote (`vtx_…`). */
  @Column({ name: 'transaction_id', type: 'text' })
  transactionId: string;

  @Column({ type: 'jsonb' })
  snapshot: RedemptionSnapshot;

  /** The lists' order. */
  @Column({ type: 'bigint' })
  @Generated('increment')
  seq: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;
}
