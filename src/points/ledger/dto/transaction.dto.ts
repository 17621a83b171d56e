import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { LimitQueryDto } from '../../../common/pagination/limit-query.dto.js';
import { Optional, QueryInt } from '../../../common/validation/decorators.js';
import { TRANSACTION_TYPES, type TransactionDetails, type TransactionType } from '../voucher-transaction.entity.js';
import { EXAMPLE_IDS } from '../../../common/openapi/examples.js';
import { EarningRuleRefDto, OrderRefDto, PendingPointsDto, RelatedVoucherDto } from '../../pending/dto/pending-points.dto.js';

export const MAX_TRANSACTION_PAGE = 1000;

/** The card right after the transaction (Voucherify's `VoucherBalance`). */
export class TransactionBalanceDto {
  @ApiProperty({ enum: ['loyalty_card'] })
  type: 'loyalty_card';

  @ApiProperty({ description: 'Points ever added to the card, after the transaction.' })
  total: number;

  @ApiProperty({ enum: ['balance'] })
  object: 'balance';

  @ApiProperty({ description: 'The change (negative for a removal or an expiry).' })
  points: number;

  @ApiProperty({ description: 'The card\'s balance after the transaction.' })
  balance: number;

  @ApiProperty({ type: RelatedVoucherDto })
  related_object: RelatedVoucherDto;
}

export class TransactionEventRefDto {
  @ApiProperty({ example: EXAMPLE_IDS.event, description: 'The order payment that earned the points (`evcus_…`).' })
  id: string;

  @ApiProperty({ enum: ['customer.order.paid'] })
  type: string;
}

export class ExpiredBucketRefDto {
  @ApiProperty({ example: EXAMPLE_IDS.pointsBucket, description: 'The bucket (`lopb_…`).' })
  id: string;

  @ApiProperty({ description: 'Points that expired from it.' })
  points: number;

  @ApiProperty({ format: 'date', description: 'Its last day.' })
  expires_at: string;
}

/** Where a transaction came from (Voucherify's `details`), fixed when it is written. */
export class TransactionDetailsDto {
  @ApiProperty({ type: TransactionBalanceDto })
  balance: TransactionBalanceDto;

  @ApiPropertyOptional({ type: OrderRefDto, description: 'POINTS_ACCRUAL, PENDING_POINTS_ACTIVATION: the paid order.' })
  order?: OrderRefDto;

  @ApiPropertyOptional({ type: TransactionEventRefDto, description: 'POINTS_ACCRUAL, PENDING_POINTS_ACTIVATION: the order\'s payment.' })
  event?: TransactionEventRefDto;

  @ApiPropertyOptional({ type: EarningRuleRefDto, description: 'POINTS_ACCRUAL, PENDING_POINTS_ACTIVATION: the rule that earned the points.' })
  earning_rule?: EarningRuleRefDto;

  @ApiPropertyOptional({
    type: PendingPointsDto,
    description:
      'PENDING_POINTS_ACTIVATION: the whole entry as it was when activated (`status` ACTIVATED, `updated_at` the activation), ' +
      'as the pending-points lists and the `activated` event show an entry.',
  })
  pending_points?: PendingPointsDto;

  @ApiPropertyOptional({ description: 'POINTS_ADDITION, POINTS_REMOVAL: why (the request\'s `reason`, or the campaign\'s initial points).' })
  reason?: string;

  @ApiPropertyOptional({ type: [ExpiredBucketRefDto], description: 'POINTS_EXPIRATION: the buckets that expired.' })
  buckets?: ExpiredBucketRefDto[];
}

/** Voucherify's loyalty card transaction (`vtx_…`). */
export class TransactionDto {
  @ApiProperty({ example: EXAMPLE_IDS.transaction })
  id: string;

  @ApiProperty({ type: String, nullable: true, description: 'The `source_id` of a balance change made by hand (POST …/balance); null otherwise.' })
  source_id: string | null;

  @ApiProperty({ example: EXAMPLE_IDS.card })
  voucher_id: string;

  @ApiProperty({ example: EXAMPLE_IDS.campaign })
  campaign_id: string;

  @ApiProperty({ type: String, nullable: true })
  source: null;

  @ApiProperty({ type: String, nullable: true })
  reason: string | null;

  @ApiProperty({ enum: TRANSACTION_TYPES, description: 'POINTS_ADDITION: points added by hand (POST …/balance) or the campaign\'s initial points of a new card; POINTS_REMOVAL: points removed by hand; POINTS_ACCRUAL: points earned straight to the balance; PENDING_POINTS_ACTIVATION: a pending entry activated; POINTS_EXPIRATION: buckets expired (negative points; `details.buckets`); POINTS_REDEMPTION: points spent on a reward (negative); POINTS_REFUND: a redemption rolled back, its points back in the buckets they came from.' })
  type: TransactionType;

  @ApiProperty({ type: TransactionDetailsDto, description: '`balance` (the card after the transaction), and where it came from.' })
  details: TransactionDetails;

  @ApiProperty({ example: EXAMPLE_IDS.transaction, type: String, nullable: true })
  related_transaction_id: null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

export class TransactionListDto {
  @ApiProperty({ enum: ['list'] })
  object: 'list';

  @ApiProperty({ enum: ['data'] })
  data_ref: 'data';

  @ApiProperty({ type: [TransactionDto], description: 'Newest first.' })
  data: TransactionDto[];

  @ApiProperty()
  has_more: boolean;
}

export class ListTransactionsQueryDto extends LimitQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_TRANSACTION_PAGE, default: 1 })
  @Optional()
  @QueryInt()
  @IsInt()
  @Min(1)
  @Max(MAX_TRANSACTION_PAGE)
  page?: number;
}

export interface TransactionView {
  id: string;
  voucherId: string;
  campaignId: string;
  type: TransactionType;
  sourceId?: string | null;
  details: TransactionDetails;
  createdAt: Date;
}

export function toTransactionDto(row: TransactionView): TransactionDto {
  return {
    id: row.id,
    source_id: row.sourceId ?? null,
    voucher_id: row.voucherId,
    campaign_id: row.campaignId,
    source: null,
    reason: row.details.reason ?? null,
    type: row.type,
    details: row.details,
    related_transaction_id: null,
    created_at: row.createdAt.toISOString(),
  };
}
