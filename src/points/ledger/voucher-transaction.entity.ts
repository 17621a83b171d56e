import { Column, CreateDateColumn, Entity, Generated, Index, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from 'typeorm';
import { BIGINT_AS_NUMBER } from '../../database/bigint-as-number.js';
import { LoyaltyCard } from '../../cards/card.entity.js';

/** Voucherify's loyalty card transaction types that this service writes. */
export const TRANSACTION_TYPES = ['POINTS_ADDITION', 'POINTS_REMOVAL', 'POINTS_ACCRUAL', 'PENDING_POINTS_ACTIVATION', 'POINTS_EXPIRATION', 'POINTS_REDEMPTION', 'POINTS_REFUND'] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

/** What a transaction shows of its origin (Voucherify's `details`), fixed when it is written. */
export interface TransactionDetails {
  balance: {
    type: 'loyalty_card';
    total: number;
    object: 'balance';
    points: number;
    balance: number;
    related_object: { id: string; type: 'voucher' };
  };
  order?: { id: string; source_id: string | null };
  event?: { id: string; type: string };
  earning_rule?: { id: string; source: { banner: string | null } };
  /** Activations: the entry as it was when activated, the JSON the pending-points lists and events show (built in SQL). */
  pending_points?: { id: string } & Record<string, unknown>;
  reason?: string;
  /** Expiries: the buckets that expired. */
  buckets?: { id: string; points: number; expires_at: string }[];
  /** Redemptions and their refunds: the redemption (`r_…`), its rollback (`rr_…`) and the reward. */
  redemption?: { id: string };
  rollback?: { id: string };
  reward?: { id: string; name: string };
}

/**
 * The card's ledger (`vtx_`): one immutable row per change of its balance, written in the transaction that
 * changes the balance, so `vouchers.balance` always equals the sum of `points` here. `seq` orders a card's
 * rows exactly (rows of one database transaction share `created_at`).
 *
 * The partial unique index is the last line of defence against a double activation: a second
 * PENDING_POINTS_ACTIVATION of one entry fails and rolls its transaction back.
 */
@Entity({ name: 'voucher_transactions' })
@Index('uq_voucher_transactions_activation', ['pendingPointsId'], { unique: true, where: `"type" = 'PENDING_POINTS_ACTIVATION'` })
@Index('idx_voucher_transactions_card_seq', ['voucherId', 'seq'])
export class VoucherTransaction {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ type: 'bigint' })
  @Generated('increment')
  seq: string;

  @Column({ name: 'project_id', type: 'text' })
  projectId: string;

  @Column({ name: 'voucher_id', type: 'text' })
  voucherId: string;

  @ManyToOne(() => LoyaltyCard, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'voucher_id' })
  card?: Relation<LoyaltyCard>;

  @Column({ name: 'campaign_id', type: 'text' })
  campaignId: string;

  @Column({ type: 'text' })
  type: TransactionType;

  /** Change of the balance (positive: added); bigint, as an expiry may take more than an integer's worth at once. */
  @Column({ type: 'bigint', transformer: BIGINT_AS_NUMBER })
  points: number;

  /** The caller's own id of a change made by hand (`source_id` of the balance request). */
  @Column({ name: 'source_id', type: 'text', nullable: true })
  sourceId: string | null;

  /** The card's balance after this transaction. */
  @Column({ name: 'balance_after', type: 'bigint', transformer: BIGINT_AS_NUMBER })
  balanceAfter: number;

  @Column({ name: 'order_id', type: 'text', nullable: true })
  orderId: string | null;

  @Column({ name: 'pending_points_id', type: 'text', nullable: true })
  pendingPointsId: string | null;

  /** `json`: written once and shown as it is, never queried inside (cheaper to store than jsonb). */
  @Column({ type: 'json' })
  details: TransactionDetails;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;
}
