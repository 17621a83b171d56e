import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { ProjectContext } from '../auth/auth.service.js';
import { CurrentProject } from '../auth/current-project.decorator.js';
import { ApiErrorResponses, ApiOkBody } from '../common/openapi/api-responses.decorator.js';
import { CAMPAIGN_ID_PARAM, CARD_CODE_PARAM } from '../common/openapi/params.js';
import { LOYALTY_CAMPAIGNS_TAG } from '../common/openapi/tags.js';
import { ApiIdempotencyKey, IdempotencyKeyHeader } from '../idempotency/idempotency-key.decorator.js';
import { RedeemRewardDto, LoyaltyRedemptionDto } from './dto/redemption.dto.js';
import { REDEEM_400, REDEEM_404 } from './redemption-errors.openapi.js';
import { RedeemService } from './redeem.service.js';

const REDEEM =
  'Spends the card\'s points on a reward offered in its campaign, in one transaction: a POINTS_REDEMPTION ledger row (`details.redemption.id` the `r_…`), the card\'s buckets drained ' +
  'soonest-expiring first, `redemption.redeemed_points`/`redeemed_quantity` of the card, a unit of the reward\'s stock and its `redeemed`, the redemption, and its events. MATERIAL: the ' +
  'assignment\'s price. COIN: needs `order`, discounted by the points (`reward.points`, or, absent, the points that pay the whole order, in whole `points_ratio` units). CAMPAIGN: the ' +
  'price, and `balance` points credited to the customer\'s card in the reward\'s campaign (enrolled if it has none). Send an `Idempotency-Key` to make a retry safe.';

/** Redeeming a reward with a loyalty card, Voucherify's v1 routes (the member is its card code). */
@ApiTags(LOYALTY_CAMPAIGNS_TAG)
@Controller('v1/loyalties')
export class RedeemController {
  constructor(private readonly redeemer: RedeemService) {}

  @Post('members/:memberId/redemption')
  @HttpCode(200)
  @CARD_CODE_PARAM
  @ApiOperation({ operationId: 'redeemReward', summary: 'Redeem a reward with a card', description: REDEEM })
  @ApiOkBody(LoyaltyRedemptionDto)
  @ApiIdempotencyKey()
  @ApiErrorResponses(REDEEM_400, 401, REDEEM_404, 409, 422, 503)
  redeem(@CurrentProject() project: ProjectContext, @Param('memberId') code: string, @Body() dto: RedeemRewardDto, @IdempotencyKeyHeader() key?: string): Promise<LoyaltyRedemptionDto> {
    return this.redeemer.redeem(project, null, code, dto, key);
  }

  @Post(':campaignId/members/:memberId/redemption')
  @HttpCode(200)
  @CAMPAIGN_ID_PARAM
  @CARD_CODE_PARAM
  @ApiOperation({ operationId: 'redeemCampaignReward', summary: 'Redeem a reward with a card, in one campaign', description: `${REDEEM} The card must belong to the campaign.` })
  @ApiOkBody(LoyaltyRedemptionDto)
  @ApiIdempotencyKey()
  @ApiErrorResponses(REDEEM_400, 401, REDEEM_404, 409, 422, 503)
  redeemInCampaign(@CurrentProject() project: ProjectContext, @Param('campaignId') campaignId: string, @Param('memberId') code: string, @Body() dto: RedeemRewardDto, @IdempotencyKeyHeader() key?: string): Promise<LoyaltyRedemptionDto> {
    return this.redeemer.redeem(project, campaignId, code, dto, key);
  }
}
