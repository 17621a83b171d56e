import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsIn, IsInt, IsString, Max, Min, NotEquals } from 'class-validator';
import { LimitQueryDto } from '../../../common/pagination/limit-query.dto.js';
import { Optional } from '../../../common/validation/decorators.js';
import { PENDING_POINTS_STATUSES, type PendingPoints, type PendingPointsStatus } from '../pending-points.entity.js';
import { EXAMPLE_IDS, patternExample } from '../../../common/openapi/examples.js';

export const PENDING_POINTS_ID = /^lopp_[a-f0-9]+$/;

export class PendingPointsEventSourceDto {
  @ApiProperty({ enum: ['API', 'INTERNAL'] })
  channel: 'API' | 'INTERNAL';

  @ApiPropertyOptional({
    type: 'object',
    description: 'The application key of the request (its `name` is absent on entries recorded before keys had names).',
    properties: { name: { type: 'string', example: 'Primary' }, app_id: { type: 'string' } },
    required: ['app_id'],
  })
  api_key?: { name?: string; app_id: string };
}

export class PendingPointsEventDto {
  @ApiProperty({ example: EXAMPLE_IDS.event, description: 'Id of the order payment that earned the points (`evcus_…`).' })
  id: string;

  @ApiProperty({ enum: ['customer.order.paid'] })
  type: 'customer.order.paid';

  @ApiProperty({ example: EXAMPLE_IDS.request, description: 'The request that paid the order.' })
  group_id: string;

  @ApiProperty({ example: EXAMPLE_IDS.customer, description: 'The customer.' })
  entity_id: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ enum: ['ACTION'] })
  category: 'ACTION';

  @ApiProperty({ type: PendingPointsEventSourceDto })
  event_source: PendingPointsEventSourceDto;
}

export class EarningRuleRefDto {
  @ApiProperty({ example: EXAMPLE_IDS.earningRule })
  id: string;

  @ApiProperty({
    type: 'object',
    properties: { banner: { type: 'string', description: 'The rule\'s banner; empty when the rule has none (records made by earlier versions may lack it, or hold null in ledger rows).' } },
  })
  source: { banner?: string };
}

export class OrderRefDto {
  @ApiProperty({ example: EXAMPLE_IDS.order })
  id: string;

  @ApiProperty({ type: String, nullable: true })
  source_id: string | null;
}

export class PendingPointsDetailsDto {
  @ApiProperty({ type: PendingPointsEventDto })
  event: PendingPointsEventDto;

  @ApiProperty({ type: EarningRuleRefDto })
  earning_rule: EarningRuleRefDto;

  @ApiProperty({ type: OrderRefDto })
  order: OrderRefDto;
}

/**
 * Voucherify's `LoyaltyPendingPoints`, with `status` (Voucherify names it only in errors) and
 * `activates_at_time`. The events and the activation's ledger row carry the same object, built in SQL
 * (src/database/functions/loyalty_pending_points_json.sql), without `activation_error`.
 */
export class PendingPointsDto {
  @ApiProperty(patternExample(PENDING_POINTS_ID, EXAMPLE_IDS.pendingPoints))
  id: string;

  @ApiProperty({ example: EXAMPLE_IDS.card, description: 'The loyalty card (`v_…`).' })
  voucher_id: string;

  @ApiProperty({ example: EXAMPLE_IDS.campaign })
  campaign_id: string;

  @ApiProperty({ example: EXAMPLE_IDS.customer })
  customer_id: string;

  @ApiProperty({ example: EXAMPLE_IDS.order })
  order_id: string;

  @ApiProperty({ description: 'Points the entry adds to the card when it is activated.' })
  points: number;

  @ApiProperty({
    format: 'date',
    example: '2025-01-16',
    description: 'The day (UTC) the entry activates, as Voucherify gives it (a date). The moment is `activates_at_time`.',
  })
  activates_at: string;

  @ApiProperty({
    format: 'date-time',
    description: 'When the worker activates it: creation + period_value days (ISO 8601, UTC). An extension of this service; Voucherify gives only the day.',
  })
  activates_at_time: string;

  @ApiProperty({ enum: PENDING_POINTS_STATUSES })
  status: PendingPointsStatus;

  @ApiProperty({ type: PendingPointsDetailsDto })
  details: PendingPointsDetailsDto;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'When the entry last changed (adjusted, set aside, activated, canceled); absent until then.' })
  updated_at?: string;

  @ApiPropertyOptional({
    description:
      'Present only when the worker could not activate this PENDING entry (PostgreSQL refused the change, e.g. its card\'s points would pass 9007199254740991): ' +
      'the entry is set aside and no longer activated automatically; `POST …/activate` tries again. An extension of this service; Voucherify has no such field.',
  })
  activation_error?: string;
}

export class PendingPointsListDto {
  @ApiProperty({ enum: ['list'] })
  object: 'list';

  @ApiProperty({ enum: ['data'] })
  data_ref: 'data';

  @ApiProperty({ type: [PendingPointsDto], description: 'PENDING entries only.' })
  data: PendingPointsDto[];

  @ApiProperty()
  has_more: boolean;

  @ApiPropertyOptional({ description: 'Pass as `starting_after_id` for the next page (set when has_more).' })
  more_starting_after?: string;
}

export class ListPendingPointsQueryDto extends LimitQueryDto {
  @ApiPropertyOptional({ enum: ['id', '-id'], default: 'id' })
  @Optional()
  @IsIn(['id', '-id'])
  order?: 'id' | '-id';

  @ApiPropertyOptional({ pattern: PENDING_POINTS_ID.source, description: 'The page after this entry (`more_starting_after` of the previous page).' })
  @Optional()
  @IsString()
  starting_after_id?: string;
}

export class AdjustPendingPointsDto {
  @ApiProperty({ description: 'Added to the entry\'s points; a negative value subtracts. The result must stay above 0.', example: -5 })
  @IsDefined({ message: 'points is required' })
  @IsInt()
  @NotEquals(0)
  @Min(-1_000_000_000)
  @Max(1_000_000_000)
  points: number;
}

export class RelatedVoucherDto {
  @ApiProperty({ enum: ['voucher'] })
  type: 'voucher';

  @ApiProperty({ example: EXAMPLE_IDS.card })
  id: string;
}

/** Answer of a manual activation. */
export class ActivationBalanceDto {
  @ApiProperty({ description: 'Points the activation added.' })
  points: number;

  @ApiProperty({ description: 'Points ever added to the card (after the activation).' })
  total: number;

  @ApiProperty({ description: 'The card\'s balance after the activation.' })
  balance: number;

  @ApiProperty({ enum: ['loyalty_card'] })
  type: 'loyalty_card';

  @ApiProperty({ enum: ['balance'] })
  object: 'balance';

  @ApiProperty({ type: RelatedVoucherDto })
  related_object: RelatedVoucherDto;

  @ApiProperty({ enum: ['MANUAL', 'AUTOMATIC'] })
  operation_type: 'MANUAL' | 'AUTOMATIC';
}

/** Answer of an adjustment. */
export class PendingBalanceDto {
  @ApiProperty({ description: 'The change made to the entry.' })
  points: number;

  @ApiProperty({ description: 'The card\'s pending points after the change.' })
  total: number;

  @ApiProperty({ enum: ['balance'] })
  object: 'balance';

  @ApiProperty({ type: RelatedVoucherDto })
  related_object: RelatedVoucherDto;

  @ApiProperty({ enum: ['MANUAL', 'AUTOMATIC'] })
  operation_type: 'MANUAL' | 'AUTOMATIC';
}

export function toPendingPointsDto(entry: PendingPoints): PendingPointsDto {
  return {
    id: entry.id,
    voucher_id: entry.voucherId,
    campaign_id: entry.campaignId,
    customer_id: entry.customerId,
    order_id: entry.orderId,
    points: entry.points,
    activates_at: entry.activatesAt.toISOString().slice(0, 10),
    activates_at_time: entry.activatesAt.toISOString(),
    status: entry.status,
    details: entry.details,
    created_at: entry.createdAt.toISOString(),
    ...(entry.updatedAt !== null ? { updated_at: entry.updatedAt.toISOString() } : {}),
    ...(entry.activationError !== null ? { activation_error: entry.activationError } : {}),
  };
}
