import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, SelectQueryBuilder } from 'typeorm';
import { LoyaltyCard } from '../points/cards/loyalty-card.entity.js';
import type { LoyaltyMemberOrder } from './dto/loyalty-member.dto.js';

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

const ORDER_COLUMN = { created_at: 'v.created_at', updated_at: 'v.updated_at', code: 'v.code' } as const;

/**
 * The v1 view of membership: published loyalty cards (vouchers held by a live member), with the campaign
 * and category the voucher object shows.
 */
@Injectable()
export class LoyaltyCardRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** A published card by code, in one campaign or in any live campaign of the project. */
  async findByCode(projectId: string, code: string, campaignId?: string): Promise<LoyaltyCard | null> {
    const query = this.published(projectId).andWhere('v.code = :code', { code });
    if (campaignId) query.andWhere('v.campaign_id = :campaignId', { campaignId });
    return query.getOne();
  }

  async findById(projectId: string, id: string): Promise<LoyaltyCard | null> {
    return this.published(projectId).andWhere('v.id = :id', { id }).getOne();
  }

  async list(projectId: string, campaignId: string, query: CardListQuery): Promise<{ rows: LoyaltyCard[]; total: number }> {
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
    return { rows, total };
  }

  private published(projectId: string): SelectQueryBuilder<LoyaltyCard> {
    return this.dataSource
      .getRepository(LoyaltyCard)
      .createQueryBuilder('v')
      .innerJoinAndSelect('v.member', 'm', `m.status <> 'DELETED'`)
      .innerJoinAndSelect('v.campaign', 'c', 'c.deleted_at IS NULL')
      .leftJoinAndSelect('c.category', 'cat')
      .where('v.project_id = :projectId', { projectId });
  }
}
