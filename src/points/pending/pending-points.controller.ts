import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { ProjectContext } from '../../auth/auth.service.js';
import { CurrentProject } from '../../auth/current-project.decorator.js';
import { ApiErrorResponses, ApiOkBody } from '../../common/openapi/api-responses.decorator.js';
import { EXAMPLE_IDS } from '../../common/openapi/examples.js';
import { CAMPAIGN_ID_PARAM, CARD_CODE_PARAM } from '../../common/openapi/params.js';
import {
  ActivationBalanceDto,
  AdjustPendingPointsDto,
  ListPendingPointsQueryDto,
  PendingBalanceDto,
  PendingPointsListDto,
} from './dto/pending-points.dto.js';
import { PendingPointsService } from './pending-points.service.js';

const ENTRY = ApiParam({ name: 'pendingPointsId', description: 'The pending entry (`lopp_…`).', example: EXAMPLE_IDS.pendingPoints });
const LIST = 'PENDING entries only, by id (`order=-id` for descending), `limit` per page; pass `more_starting_after` as `starting_after_id` for the next page.';

/** Pending points on the v1 loyalty routes (the member is its card code); activate is the manual activation. */
@ApiTags('Pending points')
@Controller('v1/loyalties')
export class PendingPointsController {
  constructor(private readonly pending: PendingPointsService) {}

  @Get('members/:memberId/pending-points')
  @CARD_CODE_PARAM
  @ApiOperation({ operationId: 'listMemberPendingPoints', summary: 'List a card\'s pending points', description: LIST })
  @ApiOkBody(PendingPointsListDto)
  @ApiErrorResponses(400, 401, 404, 503)
  listForMember(@CurrentProject() project: ProjectContext, @Param('memberId') code: string, @Query() query: ListPendingPointsQueryDto): Promise<PendingPointsListDto> {
    return this.pending.list(project, { code }, query);
  }

  @Get(':campaignId/members/:memberId/pending-points')
  @CAMPAIGN_ID_PARAM
  @CARD_CODE_PARAM
  @ApiOperation({ operationId: 'listCampaignMemberPendingPoints', summary: 'List a card\'s pending points, in one campaign', description: LIST })
  @ApiOkBody(PendingPointsListDto)
  @ApiErrorResponses(400, 401, 404, 503)
  listForCampaignMember(
    @CurrentProject() project: ProjectContext,
    @Param('campaignId') campaignId: string,
    @Param('memberId') code: string,
    @Query() query: ListPendingPointsQueryDto,
  ): Promise<PendingPointsListDto> {
    return this.pending.list(project, { campaignIdOrName: campaignId, code }, query);
  }

  @Get(':campaignId/pending-points')
  @CAMPAIGN_ID_PARAM
  @ApiOperation({ operationId: 'listCampaignPendingPoints', summary: 'List a campaign\'s pending points', description: LIST })
  @ApiOkBody(PendingPointsListDto)
  @ApiErrorResponses(400, 401, 404, 503)
  listForCampaign(@CurrentProject() project: ProjectContext, @Param('campaignId') campaignId: string, @Query() query: ListPendingPointsQueryDto): Promise<PendingPointsListDto> {
    return this.pending.list(project, { campaignIdOrName: campaignId }, query);
  }

  @Post('members/:memberId/pending-points/:pendingPointsId/activate')
  @HttpCode(200)
  @CARD_CODE_PARAM
  @ENTRY
  @ApiOperation({
    operationId: 'activateMemberPendingPoints',
    summary: 'Activate pending points now',
    description: 'The points reach the card\'s balance (a PENDING_POINTS_ACTIVATION transaction) and `customer.voucher.loyalty_card.pending_points.activated` is recorded; the delayed job then finds nothing to do. An entry that is not PENDING answers 400 `invalid_pending_points_state`; one whose points would take the card past 9007199254740991 (the most a card holds) answers 400 `invalid_amount` and stays PENDING.',
  })
  @ApiOkBody(ActivationBalanceDto)
  @ApiErrorResponses(400, 401, 404, 503)
  activate(@CurrentProject() project: ProjectContext, @Param('memberId') code: string, @Param('pendingPointsId') entryId: string): Promise<ActivationBalanceDto> {
    return this.pending.activate(project, code, entryId);
  }

  @Post('members/:memberId/pending-points/:pendingPointsId/balance')
  @HttpCode(200)
  @CARD_CODE_PARAM
  @ENTRY
  @ApiOperation({
    operationId: 'adjustMemberPendingPoints',
    summary: 'Adjust pending points',
    description: 'Adds `points` (a negative value subtracts) to a PENDING entry; a result of 0 or less answers 400 `invalid_amount`. Records `…pending_points.updated`.',
  })
  @ApiOkBody(PendingBalanceDto)
  @ApiErrorResponses(400, 401, 404, 503)
  adjust(@CurrentProject() project: ProjectContext, @Param('memberId') code: string, @Param('pendingPointsId') entryId: string, @Body() dto: AdjustPendingPointsDto): Promise<PendingBalanceDto> {
    return this.pending.adjust(project, code, entryId, dto.points);
  }

  @Post('members/:memberId/pending-points/:pendingPointsId/cancel')
  @HttpCode(204)
  @CARD_CODE_PARAM
  @ENTRY
  @ApiOperation({ operationId: 'cancelMemberPendingPoints', summary: 'Cancel pending points', description: 'The entry never reaches the balance; records `…pending_points.canceled`.' })
  @ApiNoContentResponse({ description: 'Canceled.' })
  @ApiErrorResponses(400, 401, 404, 503)
  cancel(@CurrentProject() project: ProjectContext, @Param('memberId') code: string, @Param('pendingPointsId') entryId: string): Promise<void> {
    return this.pending.cancel(project, code, entryId);
  }
}
