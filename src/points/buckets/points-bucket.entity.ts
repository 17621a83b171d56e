import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from 'typeorm';
import { BIGINT_AS_NUMBER } from '../../database/bigint-as-number.js';
import { LoyaltyCard } from '../../cards/card.entity.js';

/** The unique index of a card's ACTIVE bucket per day (the migration BucketsPerDay makes it). */
export const BUCKET_DAY_INDEX = 'uq_points_buckets_card_day';

/** How a statement names the key of that index, in the same words, so that ON CONFLICT finds it. */
export const BUCKET_DAY_KEY = `voucher_id, (coalesce(expires_at, 'infinity'::date))`;

export const BUCKET_STATUSES = ['ACTIVE', 'EXPIRED'] as const;
export type BucketStatus = (typeof BUCKET_STATUSES)[number];

/**
 * A loyalty points bucket (`lopb_`): the points of a card that expire on one day (`expires_at`), or never. A
 * card has at most one ACTIVE bucket per last day (and one that never expires): every credit (an accrual, an
 * activation, an addition, the campaign's initial points) adds to the bucket of its day, or makes it, so a
 * card's buckets grow with the days its points expire on, not with its history of credits. The card's balance
 * is always the sum of `remaining` over its ACTIVE buckets: removals drain them soonest-expiring first, and
 * the worker turns a bucket EXPIRED (its remaining points leave the balance) once its last day is over.
 * Written only under the card's lock (CardRepository), together with the ledger row of the same change.
 */
@Entity({ name: 'loyalty_points_buckets' })
@Check('CHK_points_buckets_remaining', `"remaining" >= 0 AND "remaining" <= "total_points"`)
// One ACTIVE bucket per card and last day, the never-expiring one included (NULL as 'infinity'): the target
// of every credit's ON CONFLICT, and the order of a card's bucket list. An expression index, which TypeORM
// cannot declare: made by the migration BucketsPerDay, and left alone by the schema builder.
@Index(BUCKET_DAY_INDEX, { synchronize: false })
// Removals: a card's buckets that still hold points, soonest-expiring first.
@Index('idx_points_buckets_drain', ['voucherId', 'expiresAt', 'createdAt'], { where: `"status" = 'ACTIVE' AND "remaining" > 0` })
// The expiry of a card's due buckets, the soonest first, a chunk at a time.
@Index('idx_points_buckets_card_due', ['voucherId', 'expireAfter'], { where: `"status" = 'ACTIVE' AND "expire_after" IS NOT NULL` })
// The expiry sweep: each project's buckets whose moment has come, soonest first.
@Index('idx_points_buckets_due', ['projectId', 'expireAfter'], { where: `"status" = 'ACTIVE' AND "expire_after" IS NOT NULL` })
// A card's buckets whatever their status: a forced campaign deletion's batches, and the cascade of a card's deletion.
@Index('idx_points_buckets_voucher', ['voucherId'])
export class PointsBucket {
  @PrimaryColumn({ type: 'text' })
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

  /** The points ever credited to it: the sum of the credits of its day (it never shrinks; removals lower `remaining`). */
  @Column({ name: 'total_points', type: 'bigint', transformer: BIGINT_AS_NUMBER })
  totalPoints: number;

  /** The points still in it (what the API shows as `bucket.total_points`); what expired, once EXPIRED. */
  @Column({ type: 'bigint', transformer: BIGINT_AS_NUMBER })
  remaining: number;

  @Column({ type: 'text', default: 'ACTIVE' })
  status: BucketStatus;

  /** The last day the points can be spent, in the project's time zone; null: they never expire. */
  @Column({ name: 'expires_at', type: 'date', nullable: true })
  expiresAt: string | null;

  /** The moment the bucket expires: 00:00 after `expires_at` in the project's time zone (loyalty_points_expire_after). */
  @Column({ name: 'expire_after', type: 'timestamptz', nullable: true })
  expireAfter: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', precision: 3, nullable: true })
  updatedAt: Date | null;
}
