import { Injectable } from '@nestjs/common';
import type { ProjectContext } from '../../auth/auth.service.js';
import { CampaignsService } from '../../campaigns/campaigns.service.js';
import { AppConfig } from '../../config/app-config.js';
import { ApiError } from '../../common/errors/api-error.js';
import { base62Id } from '../../common/ids.js';
import type { ExpirationRules } from '../../campaigns/campaign.entity.js';
import type { EarningLoyalty, EarningRule } from './earning-rule.entity.js';
import { type EarningRuleNow, type EarningRulePatch, EarningRuleRepository, type RuleCapReached } from './earning-rule.repository.js';
import {
  type CreateEarningRuleDto,
  type EarningLoyaltyDto,
  type EarningRuleDto,
  type EarningRuleListDto,
  type ListEarningRulesQueryDto,
  toEarningRuleDto,
  type UpdateEarningRuleDto,
} from './dto/earning-rule.dto.js';

/** Earning rules of loyalty campaigns (`order.paid`: FIXED or PROPORTIONAL on the amount, optionally pending). */
@Injectable()
export class EarningRulesService {
  constructor(
    private readonly rules: EarningRuleRepository,
    private readonly campaigns: CampaignsService,
    private readonly config: AppConfig,
  ) {}

  async create(project: ProjectContext, campaignIdOrName: string, dtos: CreateEarningRuleDto[]): Promise<EarningRuleDto[]> {
    const { campaign } = await this.campaigns.find(project, campaignIdOrName);
    const rows = dtos.map((dto, i) => {
      const start = dto.start_date !== undefined ? new Date(dto.start_date) : null;
      const expiration = dto.expiration_date !== undefined ? new Date(dto.expiration_date) : null;
      checkDates(start, expiration, dtos.length > 1 ? `[${i}] ` : '');
      return {
        id: base62Id('ern_', 24),
        projectId: project.id,
        campaignId: campaign.id,
        event: dto.event ?? 'order.paid',
        loyalty: loyaltyOf(dto.loyalty, dtos.length > 1 ? `[${i}] ` : ''),
        pendingPoints: dto.pending_points ? { period_type: dto.pending_points.period_type, period_value: dto.pending_points.period_value } : null,
        banner: dto.source?.banner ?? null,
        expirationRules: dto.expiration_rules ? plainRules(dto.expiration_rules) : null,
        active: dto.active ?? true,
        startDate: start,
        expirationDate: expiration,
        metadata: dto.metadata ?? {},
      };
    });
    // A paid order earns once per rule: the caps bound the work (and the events) of one order.
    const { maxPerCampaign, maxPerProject } = this.config.earningRules;
    const saved = await this.rules.insertWithinCaps(rows, { perCampaign: maxPerCampaign, perProject: maxPerProject });
    if (!Array.isArray(saved)) throw capReached(saved, rows.length);
    return saved.map(toEarningRuleDto);
  }

  async list(project: ProjectContext, campaignIdOrName: string, query: ListEarningRulesQueryDto): Promise<EarningRuleListDto> {
    const { campaign } = await this.campaigns.find(project, campaignIdOrName);
    const limit = query.limit ?? 10;
    const { rows, total } = await this.rules.list(project.id, campaign.id, limit, ((query.page ?? 1) - 1) * limit);
    return { object: 'list', data_ref: 'data', data: rows.map(toEarningRuleDto), total };
  }

  async get(project: ProjectContext, campaignIdOrName: string, ruleId: string): Promise<EarningRuleDto> {
    return toEarningRuleDto(await this.find(project, campaignIdOrName, ruleId));
  }

  async update(project: ProjectContext, campaignIdOrName: string, ruleId: string, dto: UpdateEarningRuleDto): Promise<EarningRuleDto> {
    const rule = await this.find(project, campaignIdOrName, ruleId);
    const patch: EarningRulePatch = {};
    if (dto.loyalty !== undefined) patch.loyalty = loyaltyOf(dto.loyalty, '');
    if (dto.pending_points !== undefined) patch.pendingPoints = dto.pending_points === null ? null : { period_type: dto.pending_points.period_type, period_value: dto.pending_points.period_value };
    if (dto.expiration_rules !== undefined) patch.expirationRules = dto.expiration_rules === null ? null : plainRules(dto.expiration_rules);
    if (dto.source?.banner !== undefined) patch.banner = dto.source.banner;
    if (dto.active !== undefined) patch.active = dto.active;
    if (dto.start_date !== undefined) patch.startDate = dto.start_date === null ? null : new Date(dto.start_date);
    if (dto.expiration_date !== undefined) patch.expirationDate = dto.expiration_date === null ? null : new Date(dto.expiration_date);
    if (dto.metadata !== undefined) patch.metadata = dto.metadata;
    checkDates(patch.startDate !== undefined ? patch.startDate : rule.startDate, patch.expirationDate !== undefined ? patch.expirationDate : rule.expirationDate, '');
    const updated = await this.rules.update(project.id, rule.campaignId, rule.id, patch);
    if (!updated) throw ApiError.notFound('earning_rule', ruleId);
    return toEarningRuleDto(updated);
  }

  async delete(project: ProjectContext, campaignIdOrName: string, ruleId: string): Promise<void> {
    const rule = await this.find(project, campaignIdOrName, ruleId);
    if (!(await this.rules.delete(project.id, rule.campaignId, rule.id))) throw ApiError.notFound('earning_rule', ruleId);
  }

  /** The rules that earn on a paid order right now (active, valid, of an active campaign). */
  earningNow(project: ProjectContext): Promise<EarningRuleNow[]> {
    return this.rules.earningNow(project.id);
  }

  private async find(project: ProjectContext, campaignIdOrName: string, ruleId: string): Promise<EarningRule> {
    const { campaign } = await this.campaigns.find(project, campaignIdOrName);
    const rule = await this.rules.find(project.id, campaign.id, ruleId);
    if (!rule) throw ApiError.notFound('earning_rule', ruleId);
    return rule;
  }
}

/** 409 `limit_exceeded`, naming the cap (and its setting) that the request would pass. */
function capReached(cap: RuleCapReached, adding: number): ApiError {
  const setting = cap.scope === 'campaign' ? 'EARNING_RULES_MAX_PER_CAMPAIGN' : 'EARNING_RULES_MAX_PER_PROJECT';
  return new ApiError(409, 'limit_exceeded', 'Limit exceeded', {
    details: `A ${cap.scope} may have at most ${cap.max} earning rules (${setting}); it has ${cap.count}, and this request adds ${adding}`,
    resourceType: 'earning_rules',
  });
}

/** The stored loyalty of a validated DTO: only the fields of its type (a FIXED rule with `order` is a mistake). */
function loyaltyOf(dto: EarningLoyaltyDto, item: string): EarningLoyalty {
  if (dto.type === 'FIXED') {
    if (dto.order !== undefined || dto.calculation_type !== undefined) throw ApiError.invalidPayload(`${item}loyalty of type FIXED takes points only, not order or calculation_type`);
    return { type: 'FIXED', points: dto.points as number };
  }
  if (dto.points !== undefined) throw ApiError.invalidPayload(`${item}loyalty of type PROPORTIONAL takes order.amount.points, not points`);
  const amount = dto.order?.amount as { every: number; points: number };
  return { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT', order: { amount: { every: amount.every, points: amount.points } } };
}

/** The validated DTO as stored: its own fields only, no class instance. */
function plainRules(dto: ExpirationRules): ExpirationRules {
  return JSON.parse(JSON.stringify(dto)) as ExpirationRules;
}

function checkDates(start: Date | null, expiration: Date | null, item: string): void {
  if (start && expiration && expiration < start) throw ApiError.invalidPayload(`${item}expiration_date must not be before start_date`);
}
