import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from 'typeorm';
import { Project } from '../auth/project.entity.js';
import { Category } from './category.entity.js';

export const CAMPAIGN_TYPES = ['AUTO_UPDATE', 'STATIC'] as const;
export type CampaignType = (typeof CAMPAIGN_TYPES)[number];

export const GENERATION_STATUSES = ['DONE', 'IN_PROGRESS', 'FAILED', 'DRAFT', 'MODIFYING'] as const;
export type GenerationStatus = (typeof GENERATION_STATUSES)[number];

export interface ExpirationRules {
  period_type: 'FIXED_DAY_OF_YEAR' | 'MONTH';
  period_value?: number;
  rounding_type?: string;
  rounding_value?: number;
  fixed_month?: number;
  fixed_day?: number;
}

export interface ValidityHours {
  daily: { start_time: string; days_of_week: number[]; expiration_time: string }[];
}

export interface LoyaltyTiersExpiration {
  qualification_type: 'BALANCE' | 'POINTS_IN_PERIOD';
  qualification_period?: string;
  start_date: { type: string };
  expiration_date: { type: string; extend: string; rounding?: { type?: string; strategy?: string; unit?: string; value?: number } };
}

/** The stored voucher model of a campaign: what every loyalty card of the campaign looks like. */
export interface VoucherModel {
  type: 'LOYALTY_CARD';
  loyalty_card: { points: number; expiration_rules?: ExpirationRules };
  redemption: { quantity: number | null };
  code_config: { length: number; charset: string; pattern: string; prefix?: string; postfix?: string };
}

export interface AccessAssignment {
  id: string;
  area_id: string | null;
  area_store_id: string | null;
  all_stores: boolean;
  created_at: string;
}

/**
 * A loyalty campaign (`camp_`). Soft-deleted rows keep their program (status DELETED) but free their
 * name; `vouchers_count` is only ever changed by card creation (and a forced deletion's batches), never by
 * a campaign update. The program row points at the campaign, which has no relation back (so that the two
 * entities do not import each other): CampaignRepository joins the program by its foreign key.
 */
@Entity({ name: 'campaigns' })
@Index('uq_campaigns_project_name_live', ['projectId', 'name'], { unique: true, where: '"deleted_at" IS NULL' })
@Index('idx_campaigns_project_created', ['projectId', 'createdAt', 'id'])
@Index('idx_campaigns_generation_in_progress', ['vouchersGenerationStatus'], { where: `"vouchers_generation_status" = 'IN_PROGRESS'` })
@Index('idx_campaigns_project_turn', ['projectId', 'generationTurnAt'], { where: '"generation_turn_at" IS NOT NULL' })
@Index('idx_campaigns_deleting', ['projectId', 'deletionTurnAt'], { where: '"deletion_action_id" IS NOT NULL' })
export class Campaign {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ name: 'project_id', type: 'text' })
  projectId: string;

  @ManyToOne(() => Project, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'project_id' })
  project?: Relation<Project>;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'text' })
  type: CampaignType;

  @Column({ name: 'auto_join', type: 'boolean', default: false })
  autoJoin: boolean;

  @Column({ name: 'use_voucher_metadata_schema', type: 'boolean', default: false })
  useVoucherMetadataSchema: boolean;

  @Column({ type: 'boolean', default: true })
  active: boolean;

  @Column({ type: 'boolean', default: false })
  protected: boolean;

  @Column({ name: 'start_date', type: 'timestamptz', nullable: true })
  startDate: Date | null;

  @Column({ name: 'expiration_date', type: 'timestamptz', nullable: true })
  expirationDate: Date | null;

  @Column({ name: 'validity_timeframe', type: 'jsonb', nullable: true })
  validityTimeframe: { duration?: string; interval?: string } | null;

  @Column({ name: 'validity_day_of_week', type: 'integer', array: true, nullable: true })
  validityDayOfWeek: number[] | null;

  @Column({ name: 'validity_hours', type: 'jsonb', nullable: true })
  validityHours: ValidityHours | null;

  @Column({ name: 'activity_duration_after_publishing', type: 'text', nullable: true })
  activityDurationAfterPublishing: string | null;

  @Column({ name: 'category_id', type: 'text', nullable: true })
  categoryId: string | null;

  @ManyToOne(() => Category, { onDelete: 'SET NULL', nullable: true })
  @JoinColumn({ name: 'category_id' })
  category?: Relation<Category> | null;

  @Column({ type: 'jsonb', default: {} })
  metadata: Record<string, unknown>;

  @Column({ type: 'jsonb' })
  voucher: VoucherModel;

  @Column({ name: 'loyalty_tiers_expiration', type: 'jsonb', nullable: true })
  loyaltyTiersExpiration: LoyaltyTiersExpiration | null;

  @Column({ name: 'access_assignments', type: 'jsonb', default: [] })
  accessAssignments: AccessAssignment[];

  /** Cards asked for at creation; the generation job makes `vouchers_target - vouchers_count` more. */
  @Column({ name: 'vouchers_target', type: 'integer', default: 0 })
  vouchersTarget: number;

  @Column({ name: 'vouchers_count', type: 'integer', default: 0 })
  vouchersCount: number;

  @Column({ name: 'creation_status', type: 'text' })
  creationStatus: GenerationStatus;

  @Column({ name: 'vouchers_generation_status', type: 'text' })
  vouchersGenerationStatus: GenerationStatus;

  /** Why generation FAILED; logged, and kept for operators (not part of the Voucherify object). */
  @Column({ name: 'generation_error', type: 'text', nullable: true })
  generationError: string | null;

  /** Card generation's turns (the worker's round-robin between projects; see CardGenerationService). */
  @Column({ name: 'generation_turn_at', type: 'timestamptz', precision: 3, nullable: true, select: false, insert: false, update: false })
  generationTurnAt: Date | null;

  @Column({ name: 'generation_lease_until', type: 'timestamptz', precision: 3, nullable: true, select: false, insert: false, update: false })
  generationLeaseUntil: Date | null;

  @Column({ name: 'generation_failures', type: 'integer', default: 0, select: false, insert: false, update: false })
  generationFailures: number;

  /** Millisecond precision, so a keyset position read back into a JS Date matches the row exactly. */
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', nullable: true })
  updatedAt: Date | null;

  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt: Date | null;

  /**
   * A forced deletion in progress (issue 36): its async action. The campaign is hidden (`deleted_at`) and the
   * worker deletes its cards in batches (CampaignDeletionService), in turns between projects
   * (`deletion_turn_at`), a batch holding the campaign until `deletion_lease_until`. Meanwhile
   * `vouchers_target` keeps the cards it had when it was deleted, and `vouchers_count` those left.
   */
  @Column({ name: 'deletion_action_id', type: 'text', nullable: true, select: false, insert: false, update: false })
  deletionActionId: string | null;

  @Column({ name: 'deletion_turn_at', type: 'timestamptz', precision: 3, nullable: true, select: false, insert: false, update: false })
  deletionTurnAt: Date | null;

  @Column({ name: 'deletion_lease_until', type: 'timestamptz', precision: 3, nullable: true, select: false, insert: false, update: false })
  deletionLeaseUntil: Date | null;
}
