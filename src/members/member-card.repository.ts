import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, SelectQueryBuilder } from 'typeorm';
import { Campaign } from '../campaigns/campaign.entity.js';
import { LoyaltyCard } from '../cards/card.entity.js';
import { prepared, runPrepared } from '../database/prepared.js';
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
  `SELECT v.campaign_id, v.id FROM vouchers v
   JOIN members m ON m.id = v.member_id AND m.status = 'ACTIVE' AND m.customer_id = $2
   WHERE v.holder_id = $2 AND v.project_id = $1 AND v.campaign_id = ANY($3::text[])`,
);

/** A published card by code, in one campaign or in any live campaign of the project (bench/'s plain baseline sends it too). */
export const PUBLISHED_BY_CODE = `SELECT v.id, v.code, v.campaign_id, v.holder_id, v.project_id
       FROM vouchers v
       JOIN members m ON m.id = v.member_id AND m.status <> 'DELETED'
       JOIN campaigns c ON c.id = v.campaign_id AND c.deleted_at IS NULL
       WHERE v.project_id = $1 AND v.code = $2 AND ($3::text IS NULL OR v.campaign_id = $3)`;

/**
 * Membership as cards show it: published cards (held by a live member), read with the members' table.
 * The cards module owns and writes the cards; this module reads them joined with its members, the v1
 * member routes of the SDK show them, and earning asks which cards a customer earns on.
 */
@Injectable()
export class MemberCardRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** A published card by code, in one campaign or in any live campaign of the project. */
  async findByCode(projectId: string, code: string, campaignId?: string): Promise<PublishedCard | null> {
    const query = this.published(projectId).andWhere('v.code = :code', { code });
    if (campaignId) query.andWhere('v.campaign_id = :campaignId', { campaignId });
    return (await query.getOne()) as PublishedCard | null;
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
    if (!campaignIds.length) return new Map();
    const rows = await runPrepared<{ campaign_id: string; id: string }[]>(this.dataSource, ACTIVE_CARDS, [projectId, customerId, campaignIds]);
    return new Map(rows.map((row) => [row.campaign_id, row.id]));
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
