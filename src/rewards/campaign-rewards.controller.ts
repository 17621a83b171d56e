import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBody, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { ProjectContext } from '../auth/auth.service.js';
import { CurrentProject } from '../auth/current-project.decorator.js';
import { ArrayBodyPipe } from '../common/http/array-body.pipe.js';
import { ApiErrorResponses, ApiOkBody } from '../common/openapi/api-responses.decorator.js';
import { CAMPAIGN_ID_PARAM } from '../common/openapi/params.js';
import { CreateCampaignAssignmentDto, ListAssignmentsQueryDto, RewardAssignmentDto, RewardAssignmentListDto, UpdateRewardAssignmentDto } from './dto/reward-assignment.dto.js';
import { RewardDto } from './dto/reward.dto.js';
import { ASSIGNMENT_400, ASSIGNMENT_404, ASSIGNMENT_409, ASSIGNMENT_ID_PARAM } from './reward-errors.openapi.js';
import { RewardAssignmentsService } from './reward-assignments.service.js';

/** Assignments a request may make at once (the POST takes an array, as Voucherify's). */
export const MAX_ASSIGNMENTS_PER_REQUEST = 100;

/** The rewards a loyalty campaign offers, at their prices (Voucherify's `/v1/loyalties/{campaignId}/rewards` and `…/reward-assignments`). */
@ApiTags('Rewards')
@Controller('v1/loyalties/:campaignId')
export class CampaignRewardsController {
  constructor(private readonly assignments: RewardAssignmentsService) {}

  @Post('rewards')
  @HttpCode(200)
  @CAMPAIGN_ID_PARAM
  @ApiOperation({
    operationId: 'createCampaignRewardAssignments',
    summary: 'Offer rewards in a campaign',
    description: `The body is an array (as in Voucherify) of rewards with their prices (up to ${MAX_ASSIGNMENTS_PER_REQUEST}); all are assigned, or none. Answers the assignments in the same order.`,
  })
  @ApiBody({ type: [CreateCampaignAssignmentDto] })
  @ApiOkResponse({ type: [RewardAssignmentDto] })
  @ApiErrorResponses(ASSIGNMENT_400, 401, ASSIGNMENT_404, ASSIGNMENT_409, 503)
  create(
    @CurrentProject() project: ProjectContext,
    @Param('campaignId') campaignId: string,
    @Body(new ArrayBodyPipe(CreateCampaignAssignmentDto, MAX_ASSIGNMENTS_PER_REQUEST)) dtos: CreateCampaignAssignmentDto[],
  ): Promise<RewardAssignmentDto[]> {
    return this.assignments.createInCampaign(project, campaignId, dtos);
  }

  @Get('rewards')
  @CAMPAIGN_ID_PARAM
  @ApiOperation({ operationId: 'listCampaignRewardAssignments', summary: 'List a campaign\'s reward assignments', description: 'Oldest first, page/limit, with a total; `assignment_id` for one.' })
  @ApiOkBody(RewardAssignmentListDto)
  @ApiErrorResponses(400, 401, ASSIGNMENT_404, 503)
  list(@CurrentProject() project: ProjectContext, @Param('campaignId') campaignId: string, @Query() query: ListAssignmentsQueryDto): Promise<RewardAssignmentListDto> {
    return this.assignments.list(project, { campaign: campaignId }, query);
  }

  @Get('reward-assignments')
  @CAMPAIGN_ID_PARAM
  @ApiOperation({ operationId: 'listCampaignRewardAssignmentsAlias', summary: 'List a campaign\'s reward assignments (the other route)', description: 'The same list as GET …/rewards.' })
  @ApiOkBody(RewardAssignmentListDto)
  @ApiErrorResponses(400, 401, ASSIGNMENT_404, 503)
  listAlias(@CurrentProject() project: ProjectContext, @Param('campaignId') campaignId: string, @Query() query: ListAssignmentsQueryDto): Promise<RewardAssignmentListDto> {
    return this.assignments.list(project, { campaign: campaignId }, query);
  }

  @Get('rewards/:assignmentId')
  @CAMPAIGN_ID_PARAM
  @ASSIGNMENT_ID_PARAM
  @ApiOperation({ operationId: 'getCampaignRewardAssignment', summary: 'Get a reward assignment of a campaign' })
  @ApiOkBody(RewardAssignmentDto)
  @ApiErrorResponses(401, ASSIGNMENT_404, 503)
  get(@CurrentProject() project: ProjectContext, @Param('campaignId') campaignId: string, @Param('assignmentId') assignmentId: string): Promise<RewardAssignmentDto> {
    return this.assignments.get(project, { campaign: campaignId }, assignmentId);
  }

  @Get('reward-assignments/:assignmentId')
  @CAMPAIGN_ID_PARAM
  @ASSIGNMENT_ID_PARAM
  @ApiOperation({ operationId: 'getCampaignRewardAssignmentAlias', summary: 'Get a reward assignment of a campaign (the other route)', description: 'The same as GET …/rewards/{assignmentId}.' })
  @ApiOkBody(RewardAssignmentDto)
  @ApiErrorResponses(401, ASSIGNMENT_404, 503)
  getAlias(@CurrentProject() project: ProjectContext, @Param('campaignId') campaignId: string, @Param('assignmentId') assignmentId: string): Promise<RewardAssignmentDto> {
    return this.assignments.get(project, { campaign: campaignId }, assignmentId);
  }

  @Get('reward-assignments/:assignmentId/reward')
  @CAMPAIGN_ID_PARAM
  @ASSIGNMENT_ID_PARAM
  @ApiOperation({ operationId: 'getCampaignRewardAssignmentReward', summary: 'Get the reward of an assignment' })
  @ApiOkBody(RewardDto)
  @ApiErrorResponses(401, ASSIGNMENT_404, 503)
  reward(@CurrentProject() project: ProjectContext, @Param('campaignId') campaignId: string, @Param('assignmentId') assignmentId: string): Promise<RewardDto> {
    return this.assignments.rewardOf(project, campaignId, assignmentId);
  }

  @Put('rewards/:assignmentId')
  @CAMPAIGN_ID_PARAM
  @ASSIGNMENT_ID_PARAM
  @ApiOperation({ operationId: 'updateCampaignRewardAssignment', summary: 'Change the price of a reward in a campaign' })
  @ApiOkBody(RewardAssignmentDto)
  @ApiErrorResponses(ASSIGNMENT_400, 401, ASSIGNMENT_404, 503)
  update(
    @CurrentProject() project: ProjectContext,
    @Param('campaignId') campaignId: string,
    @Param('assignmentId') assignmentId: string,
    @Body() dto: UpdateRewardAssignmentDto,
  ): Promise<RewardAssignmentDto> {
    return this.assignments.update(project, { campaign: campaignId }, assignmentId, dto);
  }

  @Delete('rewards/:assignmentId')
  @HttpCode(204)
  @CAMPAIGN_ID_PARAM
  @ASSIGNMENT_ID_PARAM
  @ApiOperation({ operationId: 'deleteCampaignRewardAssignment', summary: 'Stop offering a reward in a campaign' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrorResponses(401, ASSIGNMENT_404, 503)
  delete(@CurrentProject() project: ProjectContext, @Param('campaignId') campaignId: string, @Param('assignmentId') assignmentId: string): Promise<void> {
    return this.assignments.delete(project, { campaign: campaignId }, assignmentId);
  }
}
