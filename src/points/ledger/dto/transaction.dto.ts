import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { LimitQueryDto } from '../../../common/pagination/limit-query.dto.js';
import { Optional, QueryInt } from '../../../common/validation/decorators.js';
import { TRANSACTION_TYPES, type TransactionDetails, type TransactionType } from '../voucher-transaction.entity.js';
import { EXAMPLE_IDS } from '../../../common/openapi/examples.js';

export const MAX_TRANSACTION_PAGE = 1000;

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

  @ApiProperty({ enum: TRANSACTION_TYPES, description: 'POINTS_ADDITION: points added by hand (POST …/balance) or the campaign\'s initial points of a new card; POINTS_REMOVAL: points removed by hand; POINTS_ACCRUAL: points earned straight to the balance; PENDING_POINTS_ACTIVATION: a pending entry activated; POINTS_EXPIRATION: buckets expired (negative points; `details.buckets`).' })
  type: TransactionType;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: '`balance` (the card after the transaction: `points` = the change, `total` = points ever added, `balance`), and where it came from: `order`, `event`, `earning_rule`, `pending_points`, `reason` (changes by hand), `buckets` (expiries: `{id, points, expires_at}` each).',
  })
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
