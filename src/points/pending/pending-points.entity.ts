import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from 'typeorm';
import { LoyaltyCard } from '../../cards/card.entity.js';

export const PENDING_POINTS_STATUSES = ['PENDING', 'ACTIVATED', 'CANCELED'] as const;
export type PendingPointsStatus = (typeof PENDING_POINTS_STATUSES)[number];

/** What the entry shows of its origin (Voucherify's `details`), fixed when it is created. */
export interface PendingPointsDetails {
  event: {
    id: string;
    type: 'customer.order.paid';
    group_id: string;
    entity_id: string;
    created_at: string;
    category: 'ACTION';
    event_source: { channel: 'API' | 'INTERNAL'; api_key?: { name?: string; app_id: string } };
  };
  earning_rule: { id: string; source: { banner?: string } };
  order: { id: string; source_id: string | null };
}

/**
 * Points earned on a paid order and held until `activates_at` (`lopp_`). PENDING → ACTIVATED (by the
 * worker at `activates_at`, by the sweep, or by hand) or → CANCELED (by hand, or when the order is
 * canceled), each by one conditional update, so an entry moves once whoever races for it.
 *
 * The partial indexes keep PENDING rows only: the sweep's due query and the lists read an index range,
 * whatever the number of entries already settled. The due index orders entries due together by card, so
 * two batches taking due entries side by side (SKIP LOCKED) take different cards and never wait on each other.
 */
@Entity({ name: 'loyalty_pending_points' })
@Index('idx_pending_points_due', ['activatesAt', 'voucherId'], { where: `"status" = 'PENDING' AND "activation_error" IS NULL` })
@Index('idx_pending_points_card', ['voucherId', 'id'], { where: `"status" = 'PENDING'` })
@Index('idx_pending_points_campaign', ['campaignId', 'id'], { where: `"status" = 'PENDING'` })
@Index('idx_pending_points_order', ['orderId'])
// A card's entries whatever their status: a forced campaign deletion's batches, and the cascade of a card's deletion.
@Index('idx_pending_points_voucher', ['voucherId'])
export class PendingPoints {
  /** Byte order (COLLATE "C"): lists page by id. */
  @PrimaryColumn({ type: 'text', collation: 'C' })
  id: string;

  @Column({ name: 'project_id', type: 'text' })
  projectId: string;

  @Column({ name: 'voucher_id', type: 'text' })
  voucherId: string;

  @ManyToOne(() => LoyaltyCard, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'voucher_id' })
  card?: Relation<LoyaltyCard>;

  @Column({ name: 'campaign_id', type: 'text' })
  campaignId: string;

  @Column({ name: 'customer_id', type: 'text' })
  customerId: string;

  @Column({ name: 'order_id', type: 'text' })
  orderId: string;

  @Column({ name: 'earning_rule_id', type: 'text' })
  earningRuleId: string;

  @Column({ type: 'integer' })
  points: number;

  @Column({ type: 'text', default: 'PENDING' })
  status: PendingPointsStatus;

  @Column({ name: 'activates_at', type: 'timestamptz', precision: 3 })
  activatesAt: Date;

  @Column({ type: 'jsonb' })
  details: PendingPointsDetails;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', precision: 3, nullable: true })
  updatedAt: Date | null;

  /**
   * Why the worker could not activate this PENDING entry (e.g. its card's balance would pass the cap): it
   * is set aside, out of the due index, so that it does not hold back every other due entry; shown on
   * the entry, and activating it by hand tries again.
   */
  @Column({ name: 'activation_error', type: 'text', nullable: true })
  activationError: string | null;

  /** When it left PENDING (activated or canceled): lateness is `settled_at - activates_at`. */
  @Column({ name: 'settled_at', type: 'timestamptz', precision: 3, nullable: true })
  settledAt: Date | null;
}
