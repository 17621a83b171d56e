import { Injectable } from '@nestjs/common';
import type { ProjectContext } from '../auth/auth.service.js';
import { CampaignsService } from '../campaigns/campaigns.service.js';
import { ApiError } from '../common/errors/api-error.js';
import { base62Id } from '../common/ids.js';
import { TransactionRunner } from '../database/transaction-runner.js';
import { MembersService } from '../members/members.service.js';
import {
  type AssignmentParamsDto,
  type CreateCampaignAssignmentDto,
  type CreateRewardAssignmentDto,
  type ListAssignmentsQueryDto,
  type MemberRewardListDto,
  type MemberRewardsQueryDto,
  type RewardAssignmentDto,
  type RewardAssignmentListDto,
  toRewardAssignmentDto,
  type UpdateRewardAssignmentDto,
} from './dto/reward-assignment.dto.js';
import type { ListPageQueryDto } from './dto/reward-request.dto.js';
import { type RewardDto, toRewardDto } from './dto/reward.dto.js';
import { type AssignmentScope, RewardAssignmentRepository, type StoredAssignment } from './reward-assignment.repository.js';
import type { RewardType } from './reward.entity.js';
import { RewardRepository } from './reward.repository.js';
import { RewardsService } from './rewards.service.js';

/** What a new assignment is: a reward, at a price (null for COIN), in a campaign. */
interface AssignmentRequest {
  rewardId: string;
  parameters: AssignmentParamsDto | undefined;
}

/**
 * Reward assignments (a reward offered in a loyalty campaign at a price in points), through both families of
 * routes: the campaign's (`/v1/loyalties/{campaignId}/rewards…`, `…/reward-assignments…`) and the reward's
 * (`/v1/rewards/{rewardId}/assignments…`); and the rewards a member's card is offered.
 */
@Injectable()
export class RewardAssignmentsService {
  constructor(
    private readonly assignments: RewardAssignmentRepository,
    private readonly rewardRows: RewardRepository,
    private readonly rewards: RewardsService,
    private readonly campaigns: CampaignsService,
    private readonly members: MembersService,
    private readonly transactions: TransactionRunner,
  ) {}

  /** POST /v1/loyalties/{campaignId}/rewards: all of the array, or none. */
  async createInCampaign(project: ProjectContext, campaignIdOrName: string, dtos: CreateCampaignAssignmentDto[]): Promise<RewardAssignmentDto[]> {
    const { campaign } = await this.campaigns.find(project, campaignIdOrName);
    const seen = new Map<string, number>();
    dtos.forEach((dto, i) => {
      const first = seen.get(dto.reward);
      if (first !== undefined) throw ApiError.invalidPayload(`[${i}] reward ${dto.reward} is already in [${first}]: a reward is offered once per campaign`);
      seen.set(dto.reward, i);
    });
    const made = await this.insert(project, campaign.id, dtos.map((dto) => ({ rewardId: dto.reward, parameters: dto.parameters })), dtos.length > 1);
    return made.map(toRewardAssignmentDto);
  }

  /** POST /v1/rewards/{rewardId}/assignments. */
  async createForReward(project: ProjectContext, rewardId: string, dto: CreateRewardAssignmentDto): Promise<RewardAssignmentDto> {
    const reward = await this.rewards.find(project, rewardId);
    // Voucherify names the missing campaign "null".
    if (dto.campaign === undefined) throw new ApiError(404, 'not_found', 'Resource not found', { details: 'Cannot find campaign with id null', resourceType: 'campaign' });
    const { campaign } = await this.campaigns.find(project, dto.campaign);
    const [made] = await this.insert(project, campaign.id, [{ rewardId: reward.id, parameters: dto.parameters }], false);
    return toRewardAssignmentDto(made);
  }

  list(project: ProjectContext, scope: { campaign: string } | { reward: string }, query: ListAssignmentsQueryDto | ListPageQueryDto): Promise<RewardAssignmentListDto> {
    return this.withScope(project, scope, async (owner) => {
      const limit = query.limit ?? 10;
      const assignmentId = 'assignment_id' in query ? query.assignment_id : undefined;
      const { rows, total } = await this.assignments.list(project.id, { ...owner, assignmentId }, { limit, offset: ((query.page ?? 1) - 1) * limit });
      return { object: 'list', data_ref: 'data', data: rows.map(toRewardAssignmentDto), total };
    });
  }

  async get(project: ProjectContext, scope: { campaign: string } | { reward: string }, assignmentId: string): Promise<RewardAssignmentDto> {
    return toRewardAssignmentDto(await this.find(project, scope, assignmentId));
  }

  /** GET /v1/loyalties/{campaignId}/reward-assignments/{assignmentId}/reward. */
  async rewardOf(project: ProjectContext, campaignIdOrName: string, assignmentId: string): Promise<RewardDto> {
    const assignment = await this.find(project, { campaign: campaignIdOrName }, assignmentId);
    return toRewardDto(await this.rewards.find(project, assignment.rewardId));
  }

  async update(project: ProjectContext, scope: { campaign: string } | { reward: string }, assignmentId: string, dto: UpdateRewardAssignmentDto): Promise<RewardAssignmentDto> {
    const assignment = await this.find(project, scope, assignmentId);
    const { type } = await this.rewards.find(project, assignment.rewardId);
    // A PUT without a price leaves it as it is.
    const points = dto.parameters?.loyalty?.points === undefined && type !== 'COIN' ? assignment.points : priceOf(type, dto.parameters, '');
    const updated = await this.assignments.update(project.id, assignment.id, points);
    if (!updated) throw ApiError.notFound('reward_assignment', assignmentId);
    return toRewardAssignmentDto(updated);
  }

  async delete(project: ProjectContext, scope: { campaign: string } | { reward: string }, assignmentId: string): Promise<void> {
    const assignment = await this.find(project, scope, assignmentId);
    if (!(await this.assignments.delete(project.id, assignment.id))) throw ApiError.notFound('reward_assignment', assignmentId);
  }

  /** GET /v1/loyalties/members/{memberId}/rewards: the rewards offered in the card's campaign, for its balance. */
  async forMember(project: ProjectContext, code: string, query: MemberRewardsQueryDto): Promise<MemberRewardListDto> {
    const card = await this.members.findPublishedCard(project.id, code);
    if (!card) throw ApiError.notFound('voucher', code);
    const limit = query.limit ?? 10;
    const { rows, total } = await this.assignments.offered(project.id, card.campaignId, card.id, query.affordable_only === true, { limit, offset: ((query.page ?? 1) - 1) * limit });
    return {
      object: 'list',
      data_ref: 'data',
      data: rows.map(({ reward, assignment }) => ({ reward: toRewardDto(reward), assignment: toRewardAssignmentDto(assignment), object: 'loyalty_reward' })),
      total,
    };
  }

  /**
   * Inserts the assignments in one transaction, all or none, in the order asked: the campaign taken first (the
   * creations of one campaign take turns) and the rewards held (a deletion of either meanwhile waits, or is
   * waited for and then answered 404). A reward already offered in the campaign: 409 `duplicate_found` naming
   * its assignment.
   */
  private async insert(project: ProjectContext, campaignId: string, requests: AssignmentRequest[], numbered: boolean): Promise<StoredAssignment[]> {
    return this.transactions.run(async (tx) => {
      if (!(await this.assignments.holdCampaign(tx, project.id, campaignId))) throw ApiError.notFound('campaign', campaignId);
      const types = await this.rewardRows.holdTypes(tx, project.id, requests.map((request) => request.rewardId));
      const rows = requests.map((request, i) => {
        const type = types.get(request.rewardId);
        if (!type) throw ApiError.notFound('reward', request.rewardId);
        return { id: base62Id('rewa_', 24), projectId: project.id, rewardId: request.rewardId, campaignId, points: priceOf(type, request.parameters, numbered ? `[${i}] ` : '') };
      });
      const made: StoredAssignment[] = [];
      for (const row of rows) {
        const result = await this.assignments.insert(tx, row);
        if ('existingId' in result) {
          throw new ApiError(409, 'duplicate_found', 'Duplicated resource found', {
            details: `Duplicated reward_assignment exists with id ${result.existingId}`,
            resourceId: result.existingId,
            resourceType: 'reward_assignment',
          });
        }
        made.push(result.inserted);
      }
      return made;
    });
  }

  /** The assignment, within its campaign or its reward (each must exist: 404 `campaign` / `reward` first), or 404 `reward_assignment`. */
  private async find(project: ProjectContext, scope: { campaign: string } | { reward: string }, assignmentId: string): Promise<StoredAssignment> {
    return this.withScope(project, scope, async (owner) => {
      const assignment = await this.assignments.find(project.id, assignmentId, owner);
      if (!assignment) throw ApiError.notFound('reward_assignment', assignmentId);
      return assignment;
    });
  }

  private async withScope<T>(project: ProjectContext, scope: { campaign: string } | { reward: string }, work: (owner: AssignmentScope) => Promise<T>): Promise<T> {
    if ('campaign' in scope) return work({ campaignId: (await this.campaigns.find(project, scope.campaign)).campaign.id });
    return work({ rewardId: (await this.rewards.find(project, scope.reward)).id });
  }
}

/**
 * The price of an assignment: CAMPAIGN and MATERIAL rewards need `parameters.loyalty.points` (400
 * `missing_param` as Voucherify answers); a COIN reward has none, and refuses one.
 */
function priceOf(type: RewardType, parameters: AssignmentParamsDto | undefined, item: string): number | null {
  if (type === 'COIN') {
    if (parameters?.loyalty?.points !== undefined) throw ApiError.invalidPayload(`${item}parameters.loyalty.points: a COIN reward has no price (the member chooses the points to spend); leave parameters out`);
    return null;
  }
  if (!parameters?.loyalty) throw ApiError.missingParam('parameters.loyalty', item);
  if (parameters.loyalty.points === undefined) throw ApiError.missingParam('parameters.loyalty.points', item);
  return parameters.loyalty.points;
}
