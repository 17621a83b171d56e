import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { ProjectContext } from '../../auth/auth.service.js';
import { CurrentProject } from '../../auth/current-project.decorator.js';
import { ApiErrorResponses, ApiOkBody, type OwnErrorResponse } from '../../common/openapi/api-responses.decorator.js';
import { EXAMPLE_IDS } from '../../common/openapi/examples.js';
import { CAMPAIGN_ID_PARAM, CARD_CODE_PARAM } from '../../common/openapi/params.js';
import { LOYALTY_CAMPAIGNS_TAG } from '../../common/openapi/tags.js';
import { ApiIdempotencyKey, IdempotencyKeyHeader } from '../../idempotency/idempotency-key.decorator.js';
import { BalanceService } from './balance.service.js';
import { BalanceChangeDto, LoyaltyCardBalanceDto, ListPointsExpirationQueryDto, PointsBucketListDto } from './dto/balance.dto.js';

const CHANGE =
  'Adds (`points` > 0) or removes (`points` < 0) points by hand, in one transaction: the card\'s balance, a POINTS_ADDITION or ' +
  'POINTS_REMOVAL ledger row (`reason`, `source_id`), a new point bucket dated by `expiration_type` or the soonest-expiring buckets ' +
  'drained, and a `customer.voucher.loyalty_card.points_added` or `…points_removed` event. A removal larger than the balance changes nothing ' +
  '(400 `loyalty_card_points_exceeded`). Send an `Idempotency-Key` to make a retry safe.';

const ERRORS_400: OwnErrorResponse = {
  status: 400,
  description:
    'Invalid body (`invalid_payload`: points 0 or not an integer, expiration fields on a removal, CUSTOM_DATE without expiration_date); ' +
    'an expiration_date before today in the project\'s time zone (`invalid_expiration_date`); a removal larger than the balance (`loyalty_card_points_exceeded`).',
  example: {
    code: 400,
    key: 'loyalty_card_points_exceeded',
    message: 'Loyalty card points exceeded',
    details: 'Cannot remove 500 points from card L-CARD-8D7A1X: its balance is 120',
    request_id: EXAMPLE_IDS.request,
    resource_id: EXAMPLE_IDS.card,
    resource_type: 'voucher',
  },
};

/** A card's balance changed by hand, and its point buckets, on the v1 loyalty routes (the member is its card code). */
@ApiTags(LOYALTY_CAMPAIGNS_TAG)
@Controller('v1/loyalties')
export class BalanceController {
  constructor(private readonly balance: BalanceService) {}

  @Post('members/:memberId/balance')
  @HttpCode(200)
  @CARD_CODE_PARAM
  @ApiOperation({ operationId: 'updateLoyaltyCardBalance', summary: 'Add or remove a card\'s points', description: CHANGE })
  @ApiOkBody(LoyaltyCardBalanceDto)
  @ApiIdempotencyKey()
  @ApiErrorResponses(ERRORS_400, 401, 404, 503)
  change(@CurrentProject() project: ProjectContext, @Param('memberId') code: string, @Body() dto: BalanceChangeDto, @IdempotencyKeyHeader() key?: string): Promise<LoyaltyCardBalanceDto> {
    return this.balance.change(project, null, code, dto, key);
  }

  @Post(':campaignId/members/:memberId/balance')
  @HttpCode(200)
  @CAMPAIGN_ID_PARAM
  @CARD_CODE_PARAM
  @ApiOperation({ operationId: 'updateCampaignLoyaltyCardBalance', summary: 'Add or remove a card\'s points, in one campaign', description: `${CHANGE} The card must belong to the campaign.` })
  @ApiOkBody(LoyaltyCardBalanceDto)
  @ApiIdempotencyKey()
  @ApiErrorResponses(ERRORS_400, 401, 404, 503)
  campaignChange(
    @CurrentProject() project: ProjectContext,
    @Param('campaignId') campaignId: string,
    @Param('memberId') code: string,
    @Body() dto: BalanceChangeDto,
    @IdempotencyKeyHeader() key?: string,
  ): Promise<LoyaltyCardBalanceDto> {
    return this.balance.change(project, campaignId, code, dto, key);
  }

  @Get(':campaignId/members/:memberId/points-expiration')
  @CAMPAIGN_ID_PARAM
  @CARD_CODE_PARAM
  @ApiOperation({
    operationId: 'listPointsExpiration',
    summary: 'List a card\'s point buckets',
    description: 'The card\'s ACTIVE buckets, the soonest-expiring first, page/limit; `bucket.total_points` is what is left in each. Expired buckets are not listed.',
  })
  @ApiOkBody(PointsBucketListDto)
  @ApiErrorResponses(400, 401, 404, 503)
  buckets(
    @CurrentProject() project: ProjectContext,
    @Param('campaignId') campaignId: string,
    @Param('memberId') code: string,
    @Query() query: ListPointsExpirationQueryDto,
  ): Promise<PointsBucketListDto> {
    return this.balance.listBuckets(project, campaignId, code, query);
  }
}
