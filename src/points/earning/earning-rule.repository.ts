import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import { prepared, runPrepared } from '../../database/prepared.js';
import { EarningRule } from './earning-rule.entity.js';

export type NewEarningRule = Omit<EarningRule, 'campaign' | 'createdAt' | 'updatedAt'>;

/** A rule that earns now, and whether its campaign enrols a customer who is no member (`auto_join`). */
export type EarningRuleNow = Omit<EarningRule, 'campaign'> & { campaignAutoJoin: boolean };

interface EarningRuleNowRow {
  id: string;
  project_id: string;
  campaign_id: string;
  event: EarningRule['event'];
  loyalty: EarningRule['loyalty'];
  pending_points: EarningRule['pendingPoints'];
  expiration_rules: EarningRule['expirationRules'];
  banner: string | null;
  active: boolean;
  start_date: Date | null;
  expiration_date: Date | null;
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date | null;
  auto_join: boolean;
}

/** Every paid order reads this: prepared once per connection, only the columns earning needs from the campaign. */
export const EARNING_NOW = prepared(
  'earning_rules_now',
  `SELECT r.id, r.project_id, r.campaign_id, r.event, r.loyalty, r.pending_points, r.expiration_rules, r.banner, r.active, r.start_date, r.expiration_date,
          r.metadata, r.created_at, r.updated_at, c.auto_join
   FROM earning_rules r JOIN campaigns c ON c.id = r.campaign_id
   WHERE r.project_id = $1 AND r.event = 'order.paid' AND r.active
     AND (r.start_date IS NULL OR r.start_date <= now()) AND (r.expiration_date IS NULL OR r.expiration_date >= now())
     AND c.deleted_at IS NULL AND c.active AND (c.start_date IS NULL OR c.start_date <= now()) AND (c.expiration_date IS NULL OR c.expiration_date >= now())
   ORDER BY r.created_at, r.id`,
);

/** Why a create was refused: the cap of its campaign or of its project, and the rules counted against it. */
export interface RuleCapReached {
  scope: 'campaign' | 'project';
  max: number;
  count: number;
}

export type EarningRulePatch = Partial<Pick<EarningRule, 'loyalty' | 'pendingPoints' | 'expirationRules' | 'banner' | 'active' | 'startDate' | 'expirationDate' | 'metadata'>>;

@Injectable()
export class EarningRuleRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * All of one request's rules (of one campaign), or none: none when they would take their campaign past
   * `caps.perCampaign` or their project past `caps.perProject` rules (the rules of live campaigns: a campaign
   * in the bin earns nothing). Concurrent creates of one project queue on a transaction-level advisory lock of
   * the project's, taken before the count, so that no two of them count the same free room.
   */
  async insertWithinCaps(rules: NewEarningRule[], caps: { perCampaign: number; perProject: number }): Promise<EarningRule[] | RuleCapReached> {
    const { projectId, campaignId } = rules[0];
    return this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended('earning_rules:' || $1, 0))`, [projectId]);
      const [counts] = (await manager.query(
        // The project's live campaigns (their unique name index), then each one's rules (idx_earning_rules_campaign_created).
        `SELECT count(*) FILTER (WHERE c.id = $2)::int AS campaign, count(*)::int AS project
         FROM campaigns c JOIN earning_rules r ON r.campaign_id = c.id
         WHERE c.project_id = $1 AND c.deleted_at IS NULL`,
        [projectId, campaignId],
      )) as { campaign: number; project: number }[];
      if (counts.campaign + rules.length > caps.perCampaign) return { scope: 'campaign', max: caps.perCampaign, count: counts.campaign };
      if (counts.project + rules.length > caps.perProject) return { scope: 'project', max: caps.perProject, count: counts.project };
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
  async earningNow(projectId: string): Promise<EarningRuleNow[]> {
    const rows = await runPrepared<EarningRuleNowRow[]>(this.dataSource, EARNING_NOW, [projectId]);
    return rows.map((row) => ({
      id: row.id,
      projectId: row.project_id,
      campaignId: row.campaign_id,
      event: row.event,
      loyalty: row.loyalty,
      pendingPoints: row.pending_points,
      expirationRules: row.expiration_rules,
      banner: row.banner,
      active: row.active,
      startDate: row.start_date,
      expirationDate: row.expiration_date,
      metadata: row.metadata,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      campaignAutoJoin: row.auto_join,
    }));
  }
}
