import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import { EarningRule } from './earning-rule.entity.js';

export type NewEarningRule = Omit<EarningRule, 'campaign' | 'createdAt' | 'updatedAt'>;
export type EarningRulePatch = Partial<Pick<EarningRule, 'loyalty' | 'pendingPoints' | 'banner' | 'active' | 'startDate' | 'expirationDate' | 'metadata'>>;

@Injectable()
export class EarningRuleRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** All of one request's rules, or none. */
  async insertMany(rules: NewEarningRule[]): Promise<EarningRule[]> {
    return this.dataSource.transaction(async (manager) => {
      await manager.getRepository(EarningRule).insert(rules.map((rule) => rule as QueryDeepPartialEntity<EarningRule>));
      const saved = await manager.getRepository(EarningRule).findBy(rules.map((rule) => ({ id: rule.id })));
      const byId = new Map(saved.map((rule) => [rule.id, rule]));
      return rules.map((rule) => byId.get(rule.id) as EarningRule);
    });
  }

  async find(projectId: string, campaignId: string, id: string): Promise<EarningRule | null> {
    return this.dataSource.getRepository(EarningRule).findOneBy({ projectId, campaignId, id });
  }

  async list(projectId: string, campaignId: string, limit: number, offset: number): Promise<{ rows: EarningRule[]; total: number }> {
    const [rows, total] = await this.dataSource
      .getRepository(EarningRule)
      .findAndCount({ where: { projectId, campaignId }, order: { createdAt: 'ASC', id: 'ASC' }, take: limit, skip: offset });
    return { rows, total };
  }

  async update(projectId: string, campaignId: string, id: string, patch: EarningRulePatch): Promise<EarningRule | null> {
    const result = await this.dataSource
      .getRepository(EarningRule)
      .update({ projectId, campaignId, id }, { ...patch, updatedAt: new Date() } as QueryDeepPartialEntity<EarningRule>);
    return result.affected ? this.find(projectId, campaignId, id) : null;
  }

  async delete(projectId: string, campaignId: string, id: string): Promise<boolean> {
    const result = await this.dataSource.getRepository(EarningRule).delete({ projectId, campaignId, id });
    return (result.affected ?? 0) > 0;
  }

  /**
   * The rules that earn on an `order.paid` now: active and within their dates, of live campaigns that are
   * switched on and within theirs. One statement (a project has a handful of rules).
   */
  async earningNow(projectId: string): Promise<EarningRule[]> {
    return this.dataSource
      .getRepository(EarningRule)
      .createQueryBuilder('r')
      .innerJoinAndSelect('r.campaign', 'c')
      .where(`r.project_id = :projectId AND r.event = 'order.paid' AND r.active`, { projectId })
      .andWhere('(r.start_date IS NULL OR r.start_date <= now()) AND (r.expiration_date IS NULL OR r.expiration_date >= now())')
      .andWhere('c.deleted_at IS NULL AND c.active AND (c.start_date IS NULL OR c.start_date <= now()) AND (c.expiration_date IS NULL OR c.expiration_date >= now())')
      .orderBy('r.created_at', 'ASC')
      .addOrderBy('r.id', 'ASC')
      .getMany();
  }
}
