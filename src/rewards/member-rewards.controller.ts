import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { ProjectContext } from '../auth/auth.service.js';
import { CurrentProject } from '../auth/current-project.decorator.js';
import { ApiErrorResponses, ApiOkBody } from '../common/openapi/api-responses.decorator.js';
import { CARD_CODE_PARAM } from '../common/openapi/params.js';
import { LOYALTY_CAMPAIGNS_TAG } from '../common/openapi/tags.js';
import { MemberRewardListDto, MemberRewardsQueryDto } from './dto/reward-assignment.dto.js';
import { RewardAssignmentsService } from './reward-assignments.service.js';

/** The rewards a card is offered (a v1 route addressed by the card, with the campaigns in the OpenAPI document). */
@ApiTags(LOYALTY_CAMPAIGNS_TAG)
@Controller('v1/loyalties/members')
export class MemberRewardsController {
  constructor(private readonly assignments: RewardAssignmentsService) {}

  @Get(':memberId/rewards')
  @CARD_CODE_PARAM
  @ApiOperation({
    operationId: 'listMemberRewards',
    summary: 'List the rewards a card can get',
    description: 'The rewards offered in the card\'s campaign with their assignments, in the order they were assigned, page/limit, with a total; `affordable_only=true` for those the card can redeem now.',
  })
  @ApiOkBody(MemberRewardListDto)
  @ApiErrorResponses(400, 401, 404, 503)
  list(@CurrentProject() project: ProjectContext, @Param('memberId') code: string, @Query() query: MemberRewardsQueryDto): Promise<MemberRewardListDto> {
    return this.assignments.forMember(project, code, query);
  }
}
