import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { BIGINT_AS_NUMBER } from '../database/bigint-as-number.js';

/**
 * A loyalty card (`v_`): a voucher of a loyalty campaign, and the holder of its points. Codes are unique
 * per project by constraint, which is what makes concurrent generation safe: a colliding code is skipped
 * and drawn again.
 *
 * The cards module owns this table: campaigns ask it to insert generated cards, members to publish or make
 * one at enrolment, points to lock cards and change their point columns (each change together with its
 * ledger transaction and point buckets, so that `balance` = Σ `voucher_transactions.points` of the card = Σ
 * `remaining` of its ACTIVE `loyalty_points_buckets`, and
 * `pending_points` = Σ its PENDING entries). The cards module is below the features that reference a card,
 * so its foreign keys name their tables by entity name instead of importing them; a feature that shows a
 * card with its campaign or member joins them itself.
 */
@Entity({ name: 'vouchers' })
// bigint point columns, capped where a JSON number is still exact (migration CardPointsBigint).
@Check('CHK_vouchers_points_safe', `"points" <= 9007199254740991 AND "balance" <= 9007199254740991 AND "pending_points" <= 9007199254740991`)
// The card's invariant, for every writer (migration CardBalanceCheck): the balance is what came in less what
// left it, never below zero (docs/decisions.md, "One posting path (issue 38)"). A write that breaks it is the
// service's fault, not a value the caller sent: a 500 (common/errors/infrastructure-errors.ts).
@Check('CHK_vouchers_balance', `"balance" >= 0 AND "balance" = "points" - "expired_points" - "subtracted_points" - "redeemed_points"`)
@Check('CHK_vouchers_redeemed', `"redeemed_points" >= 0 AND "redeemed_quantity" >= 0`)
@Index('uq_vouchers_project_code', ['projectId', 'code'], { unique: true })
@Index('idx_vouchers_campaign', ['campaignId'])
@Index('idx_vouchers_campaign_free', ['campaignId', 'id'], { where: '"member_id" IS NULL' })
@Index('idx_vouchers_member', ['memberId'])
@Index('idx_vouchers_holder', ['holderId'])
// The cards whose expiry the worker set aside (few, if any): left out of the expiry, counted by /metrics.
@Index('idx_vouchers_expiry_set_aside', ['id'], { where: '"expiry_error" IS NOT NULL' })
export class LoyaltyCard {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ name: 'project_id', type: 'text' })
  projectId: string;

  @Column({ name: 'campaign_id', type: 'text' })
  @ForeignKey('Campaign', { onDelete: 'CASCADE' })
  campaignId: string;

  @Column({ type: 'text' })
  code: string;

  @Column({ type: 'text', default: 'LOYALTY_CARD' })
  type: 'LOYALTY_CARD';

  /** Points the card started with (the campaign's `voucher.loyalty_card.points`). */
  @Column({ name: 'initial_points', type: 'integer', default: 0 })
  initialPoints: number;

  /** Points ever added to the card (Voucherify's `loyalty_card.points`). */
  @Column({ type: 'bigint', default: 0, transformer: BIGINT_AS_NUMBER })
  points: number;

  /** Points the holder can spend now. */
  @Column({ type: 'bigint', default: 0, transformer: BIGINT_AS_NUMBER })
  balance: number;

  /** Points earned but held until their activation date. */
  @Column({ name: 'pending_points', type: 'bigint', default: 0, transformer: BIGINT_AS_NUMBER })
  pendingPoints: number;

  /** Points that expired (the worker's POINTS_EXPIRATION transactions); `balance` = `points` − `expired_points` − `subtracted_points` − `redeemed_points`. */
  @Column({ name: 'expired_points', type: 'bigint', default: 0, transformer: BIGINT_AS_NUMBER })
  expiredPoints: number;

  /** Points removed by hand (POINTS_REMOVAL transactions). */
  @Column({ name: 'subtracted_points', type: 'bigint', default: 0, transformer: BIGINT_AS_NUMBER })
  subtractedPoints: number;

  /**
   * Points spent on rewards and not given back: POINTS_REDEMPTION transactions less their POINTS_REFUND
   * (Voucherify's `redemption.redeemed_points`).
   */
  @Column({ name: 'redeemed_points', type: 'bigint', default: 0, transformer: BIGINT_AS_NUMBER })
  redeemedPoints: number;

  /** Redemptions of the card not rolled back (Voucherify's `redemption.redeemed_quantity`). */
  @Column({ name: 'redeemed_quantity', type: 'integer', default: 0 })
  redeemedQuantity: number;

  /** Points added by hand (POINTS_ADDITION transactions other than the initial points), ever. */
  @Column({ name: 'added_points', type: 'bigint', default: 0, transformer: BIGINT_AS_NUMBER })
  addedPoints: number;

  /** Pending points of the card that were activated, ever. */
  @Column({ name: 'pending_activated_points', type: 'bigint', default: 0, transformer: BIGINT_AS_NUMBER })
  pendingActivatedPoints: number;

  /** Pending points of the card that were canceled (by hand or with their order), ever. */
  @Column({ name: 'pending_canceled_points', type: 'bigint', default: 0, transformer: BIGINT_AS_NUMBER })
  pendingCanceledPoints: number;

  /** The soonest last day of the card's points that expire (its ACTIVE buckets holding points); null: none expire. */
  @Column({ name: 'next_expiration_date', type: 'date', nullable: true })
  nextExpirationDate: string | null;

  /** The points that expire on `next_expiration_date`. */
  @Column({ name: 'next_expiration_points', type: 'bigint', default: 0, transformer: BIGINT_AS_NUMBER })
  nextExpirationPoints: number;

  /**
   * Why the worker's expiry set the card aside: a chunk of its due buckets failed even alone (a statement past
   * its timeout, a value PostgreSQL refused). Such a card is left out of the expiry, so that it does not stop
   * the others', until POINTS_EXPIRY_RETRY_MS after `expiry_set_aside_at` or an operator releases it
   * (`cli.js expiry-set-aside`); null otherwise (docs/points-expiry.md).
   */
  @Column({ name: 'expiry_error', type: 'text', nullable: true })
  expiryError: string | null;

  /** When the expiry set the card aside (with `expiry_error`). */
  @Column({ name: 'expiry_set_aside_at', type: 'timestamptz', nullable: true })
  expirySetAsideAt: Date | null;

  /** The member the card is published to; null while the card is free. A free card is handed out once. */
  @Column({ name: 'member_id', type: 'text', nullable: true })
  @ForeignKey('Member', { onDelete: 'CASCADE' })
  memberId: string | null;

  /** The member's customer (`holder_id`), kept on the card so v1 lookups need no join. */
  @Column({ name: 'holder_id', type: 'text', nullable: true })
  @ForeignKey('Customer')
  holderId: string | null;

  @Column({ name: 'published_at', type: 'timestamptz', precision: 3, nullable: true })
  publishedAt: Date | null;

  /** Millisecond precision, as shown: a `created_at[after]` of a shown value must exclude that card. */
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', precision: 3, nullable: true })
  updatedAt: Date | null;
}
