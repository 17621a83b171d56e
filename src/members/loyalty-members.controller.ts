import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { ProjectContext } from '../auth/auth.service.js';
import { CurrentProject } from '../auth/current-project.decorator.js';
import { ApiErrorResponses, ApiOkBody, ENROLMENT_400_V1 } from '../common/openapi/api-responses.decorator.js';
import { CAMPAIGN_ID_PARAM, CARD_CODE_PARAM } from '../common/openapi/params.js';
import { LOYALTY_CAMPAIGNS_TAG } from '../common/openapi/tags.js';
import { CreateLoyaltyMemberDto, ListLoyaltyMembersQueryDto, LoyaltyMemberDto, LoyaltyMemberListDto } from './dto/loyalty-member.dto.js';
import { MembersService } from './members.service.js';

const DATE_RANGE = {
  type: 'object' as const,
  additionalProperties: false,
  properties: { before: { type: 'string' as const, format: 'date-time' }, after: { type: 'string' as const, format: 'date-time' } },
};

/**
 * The v1 member routes the official @voucherify/sdk calls: a member is the customer's loyalty card. In the OpenAPI
 * document they sit with the campaigns they belong to.
 */
@ApiTags(LOYALTY_CAMPAIGNS_TAG)
@Controller('v1/loyalties')
export class LoyaltyMembersController {
  constructor(private readonly members: MembersService) {}

  // Declared before ':campaignId/members' so that the literal segment wins.
  @Get('members/:memberId')
  @CARD_CODE_PARAM
  @ApiOperation({ operationId: 'getMember', summary: 'Get a loyalty card by code, in any campaign' })
  @ApiOkBody(LoyaltyMemberDto)
  @ApiErrorResponses(401, 404, 503)
  getAnywhere(@CurrentProject() project: ProjectContext, @Param('memberId') memberId: string): Promise<LoyaltyMemberDto> {
    return this.members.getV1(project, null, memberId);
  }

  @Post(':campaignId/members')
  @HttpCode(200)
  @CAMPAIGN_ID_PARAM
  @ApiOperation({ operationId: 'addMember', summary: 'Enrol a customer in a loyalty campaign', description: 'Gives the customer a loyalty card (the campaign program\'s member is made too) and returns the card.' })
  @ApiOkBody(LoyaltyMemberDto)
  @ApiErrorResponses(ENROLMENT_400_V1, 401, 404, 409, 423, 503)
  create(@CurrentProject() project: ProjectContext, @Param('campaignId') campaignId: string, @Body() dto: CreateLoyaltyMemberDto): Promise<LoyaltyMemberDto> {
    return this.members.createV1(project, campaignId, dto);
  }

  @Get(':campaignId/members')
  @CAMPAIGN_ID_PARAM
  @ApiOperation({ operationId: 'listMembers', summary: 'List a campaign\'s loyalty cards held by members', description: 'Page/limit listing (page ≤ 100) with a total; the v2 member list pages without limit.' })
  @ApiQuery({ name: 'created_at', required: false, style: 'deepObject', explode: true, schema: DATE_RANGE, description: '`created_at[before]` / `created_at[after]`: when the card was made.' })
  @ApiQuery({ name: 'updated_at', required: false, style: 'deepObject', explode: true, schema: DATE_RANGE, description: '`updated_at[before]` / `updated_at[after]`.' })
  @ApiOkBody(LoyaltyMemberListDto)
  @ApiErrorResponses(400, 401, 404, 503)
  list(@CurrentProject() project: ProjectContext, @Param('campaignId') campaignId: string, @Query() query: ListLoyaltyMembersQueryDto): Promise<LoyaltyMemberListDto> {
    return this.members.listV1(project, campaignId, query);
  }

  @Get(':campaignId/members/:memberId')
  @CAMPAIGN_ID_PARAM
  @CARD_CODE_PARAM
  @ApiOperation({ operationId: 'getCampaignMember', summary: 'Get a loyalty card of a campaign by code' })
  @ApiOkBody(LoyaltyMemberDto)
  @ApiErrorResponses(401, 404, 503)
  get(@CurrentProject() project: ProjectContext, @Param('campaignId') campaignId: string, @Param('memberId') memberId: string): Promise<LoyaltyMemberDto> {
    return this.members.getV1(project, campaignId, memberId);
  }
}
