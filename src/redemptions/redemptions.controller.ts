import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { ProjectContext } from '../auth/auth.service.js';
import { CurrentProject } from '../auth/current-project.decorator.js';
import { ApiErrorResponses, ApiOkBody } from '../common/openapi/api-responses.decorator.js';
import { ApiIdempotencyKey, IdempotencyKeyHeader } from '../idempotency/idempotency-key.decorator.js';
import { ListRedemptionsQueryDto, LoyaltyRedemptionDto, RedemptionListDto, RedemptionRollbackDto, RollbackBodyDto, RollbackQueryDto, VoucherRedemptionsDto } from './dto/redemption.dto.js';
import { REDEMPTION_404, REDEMPTION_ID_PARAM, ROLLBACK_400, VOUCHER_CODE_PARAM } from './redemption-errors.openapi.js';
import { RedemptionReadsService } from './redemption-reads.service.js';
import { RollbackService } from './rollback.service.js';

/** Redemptions: read, listed, rolled back (docs/rewards.md, "Rolling back"). */
@ApiTags('Redemptions')
@ApiExtraModels(LoyaltyRedemptionDto, RedemptionRollbackDto)
@Controller('v1')
export class RedemptionsController {
  constructor(
    private readonly reads: RedemptionReadsService,
    private readonly rollbacks: RollbackService,
  ) {}

  @Get('redemptions')
  @ApiOperation({ operationId: 'listRedemptions', summary: 'List redemptions', description: 'Redemptions and rollbacks, newest first, page/limit, with a total; filtered by `campaign`, `customer`, `order`, `created_at[before|after]`, `result`.' })
  @ApiOkBody(RedemptionListDto)
  @ApiErrorResponses(400, 401, 503)
  list(@CurrentProject() project: ProjectContext, @Query() query: ListRedemptionsQueryDto): Promise<RedemptionListDto> {
    return this.reads.list(project, query);
  }

  @Get('redemptions/:redemptionId')
  @REDEMPTION_ID_PARAM
  @ApiOperation({ operationId: 'getRedemption', summary: 'Get a redemption or a rollback', description: 'A redemption (`r_…`: `status` ROLLED_BACK and `related_redemptions.rollbacks` once rolled back) or a rollback (`rr_…`).' })
  @ApiOkResponse({ description: 'The redemption or rollback.', schema: { oneOf: [{ $ref: getSchemaPath(LoyaltyRedemptionDto) }, { $ref: getSchemaPath(RedemptionRollbackDto) }] } })
  @ApiErrorResponses(400, 401, REDEMPTION_404, 503)
  get(@CurrentProject() project: ProjectContext, @Param('redemptionId') id: string): Promise<LoyaltyRedemptionDto | RedemptionRollbackDto> {
    return this.reads.get(project, id);
  }

  @Post('redemptions/:redemptionId/rollback')
  @HttpCode(200)
  @REDEMPTION_ID_PARAM
  @ApiOperation({
    operationId: 'rollbackRedemption',
    summary: 'Roll a redemption back',
    description:
      'An exact undo, once: a POINTS_REFUND ledger row giving the points back to the buckets they came from, the card\'s counters and the reward\'s stock unit given back (a CAMPAIGN ' +
      'reward\'s credit taken back from the other card), the redemption ROLLED_BACK, its events. The body is optional. Send an `Idempotency-Key` to make a retry safe.',
  })
  @ApiOkBody(RedemptionRollbackDto)
  @ApiIdempotencyKey()
  @ApiErrorResponses(ROLLBACK_400, 401, REDEMPTION_404, 409, 422, 503)
  rollback(@CurrentProject() project: ProjectContext, @Param('redemptionId') id: string, @Query() query: RollbackQueryDto, @Body() dto: RollbackBodyDto, @IdempotencyKeyHeader() key?: string): Promise<RedemptionRollbackDto> {
    return this.rollbacks.rollback(project, id, query, dto ?? {}, key);
  }

  @Get('vouchers/:code/redemption')
  @VOUCHER_CODE_PARAM
  @ApiOperation({ operationId: 'getVoucherRedemptions', summary: 'A card\'s redemptions', description: 'The card\'s redemptions and rollbacks, newest first (the first 100), with `redeemed_quantity`.' })
  @ApiOkBody(VoucherRedemptionsDto)
  @ApiErrorResponses(400, 401, 404, 503)
  forVoucher(@CurrentProject() project: ProjectContext, @Param('code') code: string): Promise<VoucherRedemptionsDto> {
    return this.reads.forVoucher(project, code);
  }
}
