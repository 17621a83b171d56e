import { Injectable } from '@nestjs/common';
import type { ProjectContext } from '../auth/auth.service.js';
import { CampaignsService } from '../campaigns/campaigns.service.js';
import { ApiError } from '../common/errors/api-error.js';
import { base62Id } from '../common/ids.js';
import { TransactionRunner } from '../database/transaction-runner.js';
import type { CreateRewardDto, RewardAttributesDto, RewardParamsDto, RewardParamsPatchDto, ListRewardsQueryDto, UpdateRewardDto } from './dto/reward-request.dto.js';
import { type RewardDto, type RewardListDto, toRewardDto } from './dto/reward.dto.js';
import { RewardAssignmentRepository } from './reward-assignment.repository.js';
import type { Reward, RewardAttributes, RewardParameters, RewardType } from './reward.entity.js';
import { type RewardPatch, RewardRepository } from './reward.repository.js';

/** The kind of `parameters` each type has. */
const KIND_OF: Record<RewardType, 'campaign' | 'coin' | 'product'> = { CAMPAIGN: 'campaign', COIN: 'coin', MATERIAL: 'product' };
const TYPE_OF = { campaign: 'CAMPAIGN', coin: 'COIN', product: 'MATERIAL' } as const satisfies Record<string, RewardType>;

/** A reward's deletion names at most this many of the assignments that keep it (and counts them all). */
const IN_USE_IDS = 100;

/** The reward catalogue (`/v1/rewards`): the rules of a reward's type, parameters, stock and deletion. */
@Injectable()
export class RewardsService {
  constructor(
    private readonly rewards: RewardRepository,
    private readonly assignments: RewardAssignmentRepository,
    private readonly campaigns: CampaignsService,
    private readonly transactions: TransactionRunner,
  ) {}

  async create(project: ProjectContext, dto: CreateRewardDto): Promise<RewardDto> {
    const kind = kindOf(dto.parameters);
    const type = TYPE_OF[kind];
    if (dto.type !== undefined && dto.type !== type) throw ApiError.invalidPayload(`type ${dto.type} contradicts parameters.${kind}, which makes a ${type} reward`);
    checkMaterialOnly(type, dto.stock, dto.attributes);
    const reward = await this.rewards.insert({
      id: base62Id('rew_', 24),
      projectId: project.id,
      name: dto.name,
      type,
      parameters: await this.parameters(project, dto.parameters, null),
      stock: dto.stock ?? null,
      attributes: attributesOf(dto.attributes),
      metadata: dto.metadata ?? {},
    });
    return toRewardDto(reward);
  }

  async list(project: ProjectContext, query: ListRewardsQueryDto): Promise<RewardListDto> {
    const limit = query.limit ?? 10;
    const { rows, total } = await this.rewards.list(project.id, { limit, offset: ((query.page ?? 1) - 1) * limit, assignmentId: query.assignment_id });
    return { object: 'list', data_ref: 'data', data: rows.map(toRewardDto), total };
  }

  async get(project: ProjectContext, rewardId: string): Promise<RewardDto> {
    return toRewardDto(await this.find(project, rewardId));
  }

  async update(project: ProjectContext, rewardId: string, dto: UpdateRewardDto): Promise<RewardDto> {
    const reward = await this.find(project, rewardId);
    if (dto.type !== undefined && dto.type !== reward.type) throw ApiError.invalidPayload(`type ${dto.type} is not the reward's type ${reward.type}: a reward's type does not change`);
    checkMaterialOnly(reward.type, dto.stock, dto.attributes);
    const patch: RewardPatch = {};
    if (dto.name !== undefined) patch.name = dto.name;
    if (dto.parameters !== undefined) {
      const kind = kindOf(dto.parameters);
      if (kind !== KIND_OF[reward.type]) throw ApiError.invalidPayload(`parameters.${kind} is not for a ${reward.type} reward (its parameters are ${KIND_OF[reward.type]}): a reward's type does not change`);
      patch.parameters = await this.parameters(project, dto.parameters, reward.parameters);
    }
    if (dto.stock !== undefined) patch.stock = dto.stock;
    if (dto.attributes !== undefined) patch.attributes = attributesOf(dto.attributes);
    if (dto.metadata !== undefined) patch.metadata = dto.metadata;
    const result = await this.rewards.update(project.id, reward.id, patch);
    if ('missing' in result) throw ApiError.notFound('reward', rewardId);
    if ('belowRedeemed' in result) throw ApiError.invalidPayload(`stock ${String(patch.stock)} is below the ${result.belowRedeemed} units already redeemed`);
    return toRewardDto(result.updated);
  }

  /**
   * Deletes a reward that no live campaign offers (400 `resource_in_use` naming the assignments otherwise), with
   * its assignments in campaigns in the bin. The reward's row is locked first: an assignment made meanwhile
   * either commits before (and is named) or waits and finds the reward gone (404).
   */
  async delete(project: ProjectContext, rewardId: string): Promise<void> {
    await this.transactions.run(async (tx) => {
      if (!(await this.rewards.lockForDeletion(tx, project.id, rewardId))) throw ApiError.notFound('reward', rewardId);
      const inUse = await this.assignments.inUse(tx, project.id, rewardId, IN_USE_IDS);
      if (inUse.total > 0) throw ApiError.resourceInUse('reward', rewardId, { ids: inUse.ids, type: 'reward_assignment', total: inUse.total });
      await this.assignments.deleteHidden(tx, project.id, rewardId);
      await this.rewards.delete(tx, project.id, rewardId);
    });
  }

  /** A reward of the project, or 404 `reward`. */
  async find(project: ProjectContext, rewardId: string): Promise<Reward> {
    const reward = await this.rewards.find(project.id, rewardId);
    if (!reward) throw ApiError.notFound('reward', rewardId);
    return reward;
  }

  /**
   * The parameters to store: on create the DTO's (required fields checked by it), on update the DTO's fields
   * over the stored ones. A CAMPAIGN reward's campaign must be a live one of the project (404 `campaign`), its
   * balance at least 1 (400 `invalid_balance`, Voucherify's key); a COIN reward's `points_ratio` defaults to 1.
   */
  private async parameters(project: ProjectContext, dto: RewardParamsDto | RewardParamsPatchDto, stored: RewardParameters | null): Promise<RewardParameters> {
    if (dto.campaign) {
      const before = stored && 'campaign' in stored ? stored.campaign : undefined;
      const balance: number = dto.campaign.balance ?? (before?.balance as number);
      if (balance < 1) {
        throw new ApiError(400, 'invalid_balance', "Property 'parameters.campaign.balance' is invalid", {
          details: "Property 'parameters.campaign.balance' must be greater than zero for campaign type: LOYALTY_PROGRAM",
        });
      }
      const id = dto.campaign.id !== undefined ? (await this.campaigns.find(project, dto.campaign.id)).campaign.id : (before?.id as string);
      return { campaign: { id, balance, type: 'LOYALTY_PROGRAM' } };
    }
    if (dto.coin) {
      const before = stored && 'coin' in stored ? stored.coin : undefined;
      return { coin: { exchange_ratio: dto.coin.exchange_ratio ?? (before?.exchange_ratio as number), points_ratio: dto.coin.points_ratio ?? before?.points_ratio ?? 1 } };
    }
    const product = dto.product as NonNullable<RewardParamsPatchDto['product']>;
    const before = stored && 'product' in stored ? stored.product : undefined;
    return { product: { id: product.id ?? (before?.id as string), sku_id: product.sku_id !== undefined ? product.sku_id : (before?.sku_id ?? null) } };
  }
}

/** Which one of `campaign`, `coin`, `product` the parameters hold; 400 when none or several. */
function kindOf(parameters: RewardParamsDto | RewardParamsPatchDto): 'campaign' | 'coin' | 'product' {
  const kinds = (['campaign', 'coin', 'product'] as const).filter((kind) => parameters[kind] !== undefined);
  if (kinds.length !== 1) throw ApiError.invalidPayload(`parameters must hold exactly one of campaign, coin, product${kinds.length ? ` (got ${kinds.join(' and ')})` : ''}`);
  return kinds[0];
}

/** `stock` and `attributes` describe a product: only a MATERIAL reward has them (null and `{}` are accepted from any). */
function checkMaterialOnly(type: RewardType, stock: number | null | undefined, attributes: RewardAttributesDto | undefined): void {
  if (type === 'MATERIAL') return;
  if (stock !== undefined && stock !== null) throw ApiError.invalidPayload(`stock is for MATERIAL rewards only; a ${type} reward has no stock`);
  if (attributes !== undefined && Object.keys(attributesOf(attributes)).length) throw ApiError.invalidPayload(`attributes are for MATERIAL rewards only, not for a ${type} reward`);
}

/** The validated DTO as stored: its own fields only. */
function attributesOf(dto: RewardAttributesDto | undefined): RewardAttributes {
  return { ...(dto?.image_url !== undefined ? { image_url: dto.image_url } : {}), ...(dto?.description !== undefined ? { description: dto.description } : {}) };
}
