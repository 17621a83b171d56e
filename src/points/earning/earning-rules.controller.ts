import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBody, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { ProjectContext } from '../../auth/auth.service.js';
import { CurrentProject } from '../../auth/current-project.decorator.js';
import { ArrayBodyPipe } from '../../common/http/array-body.pipe.js';
import { ApiErrorResponses, ApiOkBody, type OwnErrorResponse } from '../../common/openapi/api-responses.decorator.js';
import { EXAMPLE_IDS } from '../../common/openapi/examples.js';
import { CAMPAIGN_ID_PARAM } from '../../common/openapi/params.js';
import { CreateEarningRuleDto, EarningRuleDto, EarningRuleListDto, ListEarningRulesQueryDto, UpdateEarningRuleDto } from './dto/earning-rule.dto.js';
import { EarningRulesService } from './earning-rules.service.js';

const RULE = ApiParam({ name: 'earningRuleId', description: 'The earning rule (`ern_…`).', example: EXAMPLE_IDS.earningRule });
export const MAX_RULES_PER_REQUEST = 100;

/** POST …/earning-rules: the campaign or the project would have more rules than it may. */
const TOO_MANY_RULES: OwnErrorResponse = {
  status: 409,
  description:
    'The rules would take the campaign past EARNING_RULES_MAX_PER_CAMPAIGN (100 by default) or the project past EARNING_RULES_MAX_PER_PROJECT (1,000 by default; the rules of campaigns in the bin do not count): `limit_exceeded`, `details` naming which; none is created.',
  example: {
    code: 409,
    key: 'limit_exceeded',
    message: 'Limit exceeded',
    details: 'A campaign may have at most 100 earning rules (EARNING_RULES_MAX_PER_CAMPAIGN); it has 99, and this request adds 2',
    request_id: EXAMPLE_IDS.request,
    resource_type: 'earning_rules',
  },
};

@ApiTags('Earning rules')
@Controller('v1/loyalties/:campaignId/earning-rules')
export class EarningRulesController {
  constructor(private readonly rules: EarningRulesService) {}

  @Post()
  @HttpCode(200)
  @CAMPAIGN_ID_PARAM
  @ApiOperation({
    operationId: 'createEarningRules',
    summary: 'Create earning rules',
    description:
      'The body is an array of rules (as in Voucherify); all are created, or none. Answers the created rules in the same order. A paid order earns once under each rule, so a campaign has at most EARNING_RULES_MAX_PER_CAMPAIGN rules (100 by default) and a project EARNING_RULES_MAX_PER_PROJECT (1,000): past either, 409 `limit_exceeded`.',
  })
  @ApiBody({ type: [CreateEarningRuleDto] })
  @ApiOkResponse({ type: [EarningRuleDto] })
  @ApiErrorResponses(400, 401, 404, TOO_MANY_RULES, 503)
  create(@CurrentProject() project: ProjectContext, @Param('campaignId') campaignId: string, @Body(new ArrayBodyPipe(CreateEarningRuleDto, MAX_RULES_PER_REQUEST)) rules: CreateEarningRuleDto[]): Promise<EarningRuleDto[]> {
    return this.rules.create(project, campaignId, rules);
  }

  @Get()
  @CAMPAIGN_ID_PARAM
  @ApiOperation({ operationId: 'listEarningRules', summary: 'List a campaign\'s earning rules', description: 'Oldest first, page/limit, with a total.' })
  @ApiOkBody(EarningRuleListDto)
  @ApiErrorResponses(400, 401, 404, 503)
  list(@CurrentProject() project: ProjectContext, @Param('campaignId') campaignId: string, @Query() query: ListEarningRulesQueryDto): Promise<EarningRuleListDto> {
    return this.rules.list(project, campaignId, query);
  }

  @Get(':earningRuleId')
  @CAMPAIGN_ID_PARAM
  @RULE
  @ApiOperation({ operationId: 'getEarningRule', summary: 'Get an earning rule' })
  @ApiOkBody(EarningRuleDto)
  @ApiErrorResponses(401, 404, 503)
  get(@CurrentProject() project: ProjectContext, @Param('campaignId') campaignId: string, @Param('earningRuleId') ruleId: string): Promise<EarningRuleDto> {
    return this.rules.get(project, campaignId, ruleId);
  }

  @Put(':earningRuleId')
  @CAMPAIGN_ID_PARAM
  @RULE
  @ApiOperation({ operationId: 'updateEarningRule', summary: 'Update an earning rule', description: 'Fields not sent are unchanged; `pending_points: null` removes the pending period (entries already pending stay).' })
  @ApiOkBody(EarningRuleDto)
  @ApiErrorResponses(400, 401, 404, 503)
  update(@CurrentProject() project: ProjectContext, @Param('campaignId') campaignId: string, @Param('earningRuleId') ruleId: string, @Body() dto: UpdateEarningRuleDto): Promise<EarningRuleDto> {
    return this.rules.update(project, campaignId, ruleId, dto);
  }

  @Delete(':earningRuleId')
  @HttpCode(204)
  @CAMPAIGN_ID_PARAM
  @RULE
  @ApiOperation({ operationId: 'deleteEarningRule', summary: 'Delete an earning rule', description: 'Points already earned under it, pending or not, stay.' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrorResponses(401, 404, 503)
  delete(@CurrentProject() project: ProjectContext, @Param('campaignId') campaignId: string, @Param('earningRuleId') ruleId: string): Promise<void> {
    return this.rules.delete(project, campaignId, ruleId);
  }
}
