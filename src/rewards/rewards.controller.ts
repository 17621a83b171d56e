import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { ProjectContext } from '../auth/auth.service.js';
import { CurrentProject } from '../auth/current-project.decorator.js';
import { ApiErrorResponses, ApiOkBody } from '../common/openapi/api-responses.decorator.js';
import { CreateRewardAssignmentDto, RewardAssignmentDto, RewardAssignmentListDto, UpdateRewardAssignmentDto } from './dto/reward-assignment.dto.js';
import { CreateRewardDto, ListPageQueryDto, ListRewardsQueryDto, UpdateRewardDto } from './dto/reward-request.dto.js';
import { RewardDto, RewardListDto } from './dto/reward.dto.js';
import { ASSIGNMENT_400, ASSIGNMENT_404, ASSIGNMENT_409, ASSIGNMENT_ID_PARAM, REWARD_400, REWARD_404, REWARD_ID_PARAM, REWARD_IN_USE } from './reward-errors.openapi.js';
import { RewardAssignmentsService } from './reward-assignments.service.js';
import { RewardsService } from './rewards.service.js';

/** The reward catalogue and, per reward, the campaigns that offer it (docs/rewards.md). */
@ApiTags('Rewards')
@Controller('v1/rewards')
export class RewardsController {
  constructor(
    private readonly rewards: RewardsService,
    private readonly assignments: RewardAssignmentsService,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createReward',
    summary: 'Create a reward',
    description: 'CAMPAIGN (points on the customer\'s card in another loyalty campaign), COIN (pay with points) or MATERIAL (a product, with an optional stock): the type follows from `parameters`.',
  })
  @ApiOkBody(RewardDto)
  @ApiErrorResponses(REWARD_400, 401, REWARD_404, 503)
  create(@CurrentProject() project: ProjectContext, @Body() dto: CreateRewardDto): Promise<RewardDto> {
    return this.rewards.create(project, dto);
  }

  @Get()
  @ApiOperation({ operationId: 'listRewards', summary: 'List rewards', description: 'Oldest first, page/limit, with a total; `assignment_id` gives the reward of one assignment.' })
  @ApiOkBody(RewardListDto)
  @ApiErrorResponses(400, 401, 503)
  list(@CurrentProject() project: ProjectContext, @Query() query: ListRewardsQueryDto): Promise<RewardListDto> {
    return this.rewards.list(project, query);
  }

  @Get(':rewardId')
  @REWARD_ID_PARAM
  @ApiOperation({ operationId: 'getReward', summary: 'Get a reward' })
  @ApiOkBody(RewardDto)
  @ApiErrorResponses(401, REWARD_404, 503)
  get(@CurrentProject() project: ProjectContext, @Param('rewardId') rewardId: string): Promise<RewardDto> {
    return this.rewards.get(project, rewardId);
  }

  @Put(':rewardId')
  @REWARD_ID_PARAM
  @ApiOperation({ operationId: 'updateReward', summary: 'Update a reward', description: 'Fields not sent are unchanged; a reward\'s type does not change; `stock` not below `redeemed`.' })
  @ApiOkBody(RewardDto)
  @ApiErrorResponses(REWARD_400, 401, REWARD_404, 503)
  update(@CurrentProject() project: ProjectContext, @Param('rewardId') rewardId: string, @Body() dto: UpdateRewardDto): Promise<RewardDto> {
    return this.rewards.update(project, rewardId, dto);
  }

  @Delete(':rewardId')
  @HttpCode(204)
  @REWARD_ID_PARAM
  @ApiOperation({ operationId: 'deleteReward', summary: 'Delete a reward', description: 'Only a reward no live campaign offers (400 `resource_in_use` otherwise).' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrorResponses(REWARD_IN_USE, 401, REWARD_404, 503)
  delete(@CurrentProject() project: ProjectContext, @Param('rewardId') rewardId: string): Promise<void> {
    return this.rewards.delete(project, rewardId);
  }

  @Post(':rewardId/assignments')
  @HttpCode(200)
  @REWARD_ID_PARAM
  @ApiOperation({ operationId: 'createRewardAssignment', summary: 'Offer a reward in a campaign', description: 'One assignment: the campaign and the price in points (none for a COIN reward).' })
  @ApiOkBody(RewardAssignmentDto)
  @ApiErrorResponses(ASSIGNMENT_400, 401, ASSIGNMENT_404, ASSIGNMENT_409, 503)
  createAssignment(@CurrentProject() project: ProjectContext, @Param('rewardId') rewardId: string, @Body() dto: CreateRewardAssignmentDto): Promise<RewardAssignmentDto> {
    return this.assignments.createForReward(project, rewardId, dto);
  }

  @Get(':rewardId/assignments')
  @REWARD_ID_PARAM
  @ApiOperation({ operationId: 'listRewardAssignments', summary: 'List the campaigns that offer a reward', description: 'Its assignments, oldest first, page/limit, with a total.' })
  @ApiOkBody(RewardAssignmentListDto)
  @ApiErrorResponses(400, 401, ASSIGNMENT_404, 503)
  listAssignments(@CurrentProject() project: ProjectContext, @Param('rewardId') rewardId: string, @Query() query: ListPageQueryDto): Promise<RewardAssignmentListDto> {
    return this.assignments.list(project, { reward: rewardId }, query);
  }

  @Get(':rewardId/assignments/:assignmentId')
  @REWARD_ID_PARAM
  @ASSIGNMENT_ID_PARAM
  @ApiOperation({ operationId: 'getRewardAssignment', summary: 'Get an assignment of a reward' })
  @ApiOkBody(RewardAssignmentDto)
  @ApiErrorResponses(401, ASSIGNMENT_404, 503)
  getAssignment(@CurrentProject() project: ProjectContext, @Param('rewardId') rewardId: string, @Param('assignmentId') assignmentId: string): Promise<RewardAssignmentDto> {
    return this.assignments.get(project, { reward: rewardId }, assignmentId);
  }

  @Put(':rewardId/assignments/:assignmentId')
  @REWARD_ID_PARAM
  @ASSIGNMENT_ID_PARAM
  @ApiOperation({ operationId: 'updateRewardAssignment', summary: 'Change the price of a reward in a campaign' })
  @ApiOkBody(RewardAssignmentDto)
  @ApiErrorResponses(ASSIGNMENT_400, 401, ASSIGNMENT_404, 503)
  updateAssignment(
    @CurrentProject() project: ProjectContext,
    @Param('rewardId') rewardId: string,
    @Param('assignmentId') assignmentId: string,
    @Body() dto: UpdateRewardAssignmentDto,
  ): Promise<RewardAssignmentDto> {
    return this.assignments.update(project, { reward: rewardId }, assignmentId, dto);
  }

  @Delete(':rewardId/assignments/:assignmentId')
  @HttpCode(204)
  @REWARD_ID_PARAM
  @ASSIGNMENT_ID_PARAM
  @ApiOperation({ operationId: 'deleteRewardAssignment', summary: 'Stop offering a reward in a campaign' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrorResponses(401, ASSIGNMENT_404, 503)
  deleteAssignment(@CurrentProject() project: ProjectContext, @Param('rewardId') rewardId: string, @Param('assignmentId') assignmentId: string): Promise<void> {
    return this.assignments.delete(project, { reward: rewardId }, assignmentId);
  }
}
