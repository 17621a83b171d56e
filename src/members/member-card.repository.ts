import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, SelectQueryBuilder } from 'typeorm';
import { Campaign } from '../campaigns/campaign.entity.js';
import { LoyaltyCard } from '../cards/card.entity.js';
import { prepared, runPrepared } from '../database/prepared.js';
import { Category } from '../campaigns/category.entity.js';
import type { LoyaltyMemberOrder, PublishedCard } from './dto/loyalty-member.dto.js';
import { Member } from './member.entity.js';

export interface CardListQuery {
  limit: number;
  offset: number;
  order: LoyaltyMemberOrder;
  holderIds?: string[];
  code?: string;
  createdBefore?: string;
  createdAfter?: string;
  updatedBefore?: string;
  updatedAfter?: string;
}

/** A published card as the points code needs it. */
export interface CardRef {
  id: string;
  code: string;
  campaignId: string;
  holderId: string;
  projectId: string;
}

const ORDER_COLUMN = { created_at: 'v.created_at', updated_at: 'v.updated_at', code: 'v.code' } as const;

export const ACTIVE_CARDS = prepared(
  'cards_active_of',
  `SELECT v.holder_id AS customer_id, v.campaign_id, v.id FROM vouchers v
   JOIN members m ON m.id = v.member_id AND m.status = 'ACTIVE' AND m.customer_id = v.holder_id
   WHERE v.holder_id = ANY($2::text[]) AND v.project_id = $1 AND v.campaign_id = ANY($3::text[])`,
);

/** A published card by code, in one campaign or in any live campaign of the project (bench/'s plain baseline sends it too). */
export const PUBLISHED_BY_CODE = `SELECT v.id, v.code, v.campaign_id, v.holder_id, v.project_id
       FROM vouchers v
       JOIN members m ON m.id = v.member_id AND m.status <> 'DELETED'
       JOIN campaigns c ON c.id = v.campaign_id AND c.deleted_at IS NULL
       WHERE v.project_id = $1 AND v.code = $2 AND ($3::text IS NULL OR v.campaign_id = $3)`;

/**
 * A published card by code ($2) with its member, its campaign (the columns TypeORM selects of it) and the
 * campaign's category, one row (`cardFromRow`): the card of every redemption and v1 member read. A fixed
 * statement, so that PostgreSQL parses it once per connection and nothing builds it per call (TypeORM's query
 * builder did, and hydrated its aliased columns, at a cost per redemption: bench/README.md, "Redemptions");
 * bench/'s plain baseline sends it too. The member's, campaign's and category's columns are prefixed `m_`,
 * `c_`, `cat_`; the date comes as text, as TypeORM hydrates a `date` column.
 */
export const CARD_BY_CODE = prepared(
  'member_cards_by_code',
  `SELECT v.id, v.project_id, v.campaign_id, v.code, v.type, v.initial_points, v.points, v.balance, v.pending_points, v.expired_points,
          v.subtracted_points, v.redeemed_points, v.redeemed_quantity, v.added_points, v.pending_activated_points, v.pending_canceled_points,
          to_char(v.next_expiration_date, 'YYYY-MM-DD') AS next_expiration_date, v.next_expiration_points, v.expiry_error, v.expiry_set_aside_at,
          v.member_id, v.holder_id, v.published_at, v.created_at, v.updated_at,
          m.id AS m_id, m.project_id AS m_project_id, m.program_id AS m_program_id, m.customer_id AS m_customer_id, m.status AS m_status,
          m.metadata AS m_metadata, m.created_at AS m_created_at, m.updated_at AS m_updated_at,
          c.id AS c_id, c.project_id AS c_project_id, c.name AS c_name, c.description AS c_description, c.type AS c_type, c.auto_join AS c_auto_join,
          c.use_voucher_metadata_schema AS c_use_voucher_metadata_schema, c.active AS c_active, c.protected AS c_protected,
          c.start_date AS c_start_date, c.expiration_date AS c_expiration_date, c.validity_timeframe AS c_validity_timeframe,
          c.validity_day_of_week AS c_validity_day_of_week, c.validity_hours AS c_validity_hours,
          c.activity_duration_after_publishing AS c_activity_duration_after_publishing, c.category_id AS c_category_id, c.metadata AS c_metadata,
          c.voucher AS c_voucher, c.loyalty_tiers_expiration AS c_loyalty_tiers_expiration, c.access_assignments AS c_access_assignments,
          c.vouchers_target AS c_vouchers_target, c.vouchers_count AS c_vouchers_count, c.creation_status AS c_creation_status,
          c.vouchers_generation_status AS c_vouchers_generation_status, c.generation_error AS c_generation_error, c.created_at AS c_created_at,
          c.updated_at AS c_updated_at, c.deleted_at AS c_deleted_at,
          cat.id AS cat_id, cat.project_id AS cat_project_id, cat.name AS cat_name, cat.hierarchy AS cat_hierarchy, cat.created_at AS cat_created_at
     FROM vouchers v
     JOIN members m ON m.id = v.member_id AND m.status <> 'DELETED'
     JOIN campaigns c ON c.id = v.campaign_id AND c.deleted_at IS NULL
     LEFT JOIN categories cat ON cat.id = c.category_id
    WHERE v.project_id = $1 AND v.code = ANY($2::text[])`,
);

/**
 * Membership as cards show it: published cards (held by a live member), read with the members' table.
 * The cards module owns and writes the cards; this module reads them joined with its members, the v1
 * member routes of the SDK show them, and earning asks which cards a customer earns on.
 */
@Injectable()
export class MemberCardRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** A published card by code (CARD_BY_CODE), as `findById` reads one by id. */
  async findByCode(projectId: string, code: string): Promise<PublishedCard | null> {
    return (await this.findByCodes(projectId, [code])).get(code) ?? null;
  }

  /** Published cards by code (CARD_BY_CODE, one statement), by their code; a code without one is absent. */
  async findByCodes(projectId: string, codes: string[]): Promise<Map<string, PublishedCard>> {
    const rows = await runPrepared<CardRow[]>(this.dataSource, CARD_BY_CODE, [projectId, [...new Set(codes)]]);
    return new Map(rows.map((row) => [row.code as string, cardFromRow(row)]));
  }

  async findById(projectId: string, id: string): Promise<PublishedCard | null> {
    return (await this.published(projectId).andWhere('v.id = :id', { id }).getOne()) as PublishedCard | null;
  }

  async list(projectId: string, campaignId: string, query: CardListQuery): Promise<{ rows: PublishedCard[]; total: number }> {
    const builder = this.published(projectId).andWhere('v.campaign_id = :campaignId', { campaignId });
    if (query.holderIds) builder.andWhere('v.holder_id IN (:...holderIds)', { holderIds: query.holderIds });
    if (query.code !== undefined) builder.andWhere('v.code = :code', { code: query.code });
    if (query.createdBefore) builder.andWhere('v.created_at < :createdBefore', { createdBefore: query.createdBefore });
    if (query.createdAfter) builder.andWhere('v.created_at > :createdAfter', { createdAfter: query.createdAfter });
    if (query.updatedBefore) builder.andWhere('v.updated_at < :updatedBefore', { updatedBefore: query.updatedBefore });
    if (query.updatedAfter) builder.andWhere('v.updated_at > :updatedAfter', { updatedAfter: query.updatedAfter });
    const desc = query.order.startsWith('-');
    const column = ORDER_COLUMN[(desc ? query.order.slice(1) : query.order) as keyof typeof ORDER_COLUMN];
    builder.orderBy(column, desc ? 'DESC' : 'ASC').addOrderBy('v.id', desc ? 'DESC' : 'ASC').take(query.limit).skip(query.offset);
    const [rows, total] = await builder.getManyAndCount();
    return { rows: rows as PublishedCard[], total };
  }

  /** A card held by a live member, by code; in one campaign when given. */
  async findPublished(projectId: string, code: string, campaignId?: string): Promise<CardRef | null> {
    const [row] = (await this.dataSource.query(PUBLISHED_BY_CODE, [projectId, code, campaignId ?? null])) as { id: string; code: string; campaign_id: string; holder_id: string; project_id: string }[];
    return row ? { id: row.id, code: row.code, campaignId: row.campaign_id, holderId: row.holder_id, projectId: row.project_id } : null;
  }

  /**
   * The cards of the customer's ACTIVE memberships in these campaigns (INACTIVE members do not earn), by
   * campaign. Found by the card's `holder_id` (its index), not through the members' table: that join read
   * every card of the project's campaigns on each paid order.
   */
  async activeCardsOf(projectId: string, customerId: string, campaignIds: string[]): Promise<Map<string, string>> {
    return (await this.activeCardsOfAll(projectId, [customerId], campaignIds)).get(customerId) ?? new Map();
  }

  /** `activeCardsOf` for several customers in one statement: per customer, by campaign (a customer with none is missing). */
  async activeCardsOfAll(projectId: string, customerIds: string[], campaignIds: string[]): Promise<Map<string, Map<string, string>>> {
    const cards = new Map<string, Map<string, string>>();
    if (!campaignIds.length || !customerIds.length) return cards;
    const rows = await runPrepared<{ customer_id: string; campaign_id: string; id: string }[]>(this.dataSource, ACTIVE_CARDS, [projectId, customerIds, campaignIds]);
    for (const row of rows) {
      let of = cards.get(row.customer_id);
      if (!of) cards.set(row.customer_id, (of = new Map()));
      of.set(row.campaign_id, row.id);
    }
    return cards;
  }

  /** Whether the customer has a live (ACTIVE or INACTIVE) membership in the campaign's program. */
  async hasLiveMembership(projectId: string, customerId: string, campaignId: string): Promise<boolean> {
    const rows = (await this.dataSource.query(
      `SELECT 1 FROM members m JOIN loyalty_programs p ON p.id = m.program_id
       WHERE m.project_id = $1 AND m.customer_id = $2 AND p.campaign_id = $3 AND m.status <> 'DELETED' LIMIT 1`,
      [projectId, customerId, campaignId],
    )) as unknown[];
    return rows.length > 0;
  }

  /** The card's member and campaign are joined by hand: the card entity, below members and campaigns, declares no relation to them. */
  private published(projectId: string): SelectQueryBuilder<LoyaltyCard> {
    return this.dataSource
      .getRepository(LoyaltyCard)
      .createQueryBuilder('v')
      .innerJoinAndMapOne('v.member', Member, 'm', `m.id = v.member_id AND m.status <> 'DELETED'`)
      .innerJoinAndMapOne('v.campaign', Campaign, 'c', 'c.id = v.campaign_id AND c.deleted_at IS NULL')
      .leftJoinAndSelect('c.category', 'cat')
      .where('v.project_id = :projectId', { projectId });
  }
}

/** A row of CARD_BY_CODE: bigint columns come as text, as node-postgres reads them. */
interface CardRow {
  [column: string]: unknown;
  next_expiration_date: string | null;
}

/** A bigint column as a number (BIGINT_AS_NUMBER of the card entity). */
function bigint(value: unknown): number {
  return Number(value);
}

/** CARD_BY_CODE's row as the entities TypeORM's `published` query hydrates: the same classes, properties and values. */
function cardFromRow(r: CardRow): PublishedCard {
  const member = Object.assign(new Member(), {
    id: r.m_id,
    projectId: r.m_project_id,
    programId: r.m_program_id,
    customerId: r.m_customer_id,
    status: r.m_status,
    metadata: r.m_metadata,
    createdAt: r.m_created_at,
    updatedAt: r.m_updated_at,
  });
  const category =
    r.cat_id === null
      ? null
      : Object.assign(new Category(), { id: r.cat_id, projectId: r.cat_project_id, name: r.cat_name, hierarchy: r.cat_hierarchy, createdAt: r.cat_created_at });
  const campaign = Object.assign(new Campaign(), {
    id: r.c_id,
    projectId: r.c_project_id,
    name: r.c_name,
    description: r.c_description,
    type: r.c_type,
    autoJoin: r.c_auto_join,
    useVoucherMetadataSchema: r.c_use_voucher_metadata_schema,
    active: r.c_active,
    protected: r.c_protected,
    startDate: r.c_start_date,
    expirationDate: r.c_expiration_date,
    validityTimeframe: r.c_validity_timeframe,
    validityDayOfWeek: r.c_validity_day_of_week,
    validityHours: r.c_validity_hours,
    activityDurationAfterPublishing: r.c_activity_duration_after_publishing,
    categoryId: r.c_category_id,
    metadata: r.c_metadata,
    voucher: r.c_voucher,
    loyaltyTiersExpiration: r.c_loyalty_tiers_expiration,
    accessAssignments: r.c_access_assignments,
    vouchersTarget: r.c_vouchers_target,
    vouchersCount: r.c_vouchers_count,
    creationStatus: r.c_creation_status,
    vouchersGenerationStatus: r.c_vouchers_generation_status,
    generationError: r.c_generation_error,
    createdAt: r.c_created_at,
    updatedAt: r.c_updated_at,
    deletedAt: r.c_deleted_at,
    category,
  });
  return Object.assign(new LoyaltyCard(), {
    id: r.id,
    projectId: r.project_id,
    campaignId: r.campaign_id,
    code: r.code,
    type: r.type,
    initialPoints: r.initial_points,
    points: bigint(r.points),
    balance: bigint(r.balance),
    pendingPoints: bigint(r.pending_points),
    expiredPoints: bigint(r.expired_points),
    subtractedPoints: bigint(r.subtracted_points),
    redeemedPoints: bigint(r.redeemed_points),
    redeemedQuantity: r.redeemed_quantity,
    addedPoints: bigint(r.added_points),
    pendingActivatedPoints: bigint(r.pending_activated_points),
    pendingCanceledPoints: bigint(r.pending_canceled_points),
    nextExpirationDate: r.next_expiration_date,
    nextExpirationPoints: bigint(r.next_expiration_points),
    expiryError: r.expiry_error,
    expirySetAsideAt: r.expiry_set_aside_at,
    memberId: r.member_id,
    holderId: r.holder_id,
    publishedAt: r.published_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    member,
    campaign,
  });
}
