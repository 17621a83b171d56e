import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsDefined, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { LimitQueryDto } from '../../../common/pagination/limit-query.dto.js';
import { IsDateTime, IsMetadata, Nested, Optional, QueryInt } from '../../../common/validation/decorators.js';
import { EARNING_EVENTS, type EarningEvent, type EarningLoyalty, type EarningRule, type PendingPointsRule } from '../earning-rule.entity.js';
import { EXAMPLE_IDS, patternExample } from '../../../common/openapi/examples.js';
import { LoyaltyCardExpirationRulesDto } from '../../../campaigns/dto/campaign-settings.dto.js';
import type { ExpirationRules } from '../../../campaigns/campaign.entity.js';
import { present } from '../../../common/present.js';

export const EARNING_RULE_ID = /^ern_[a-zA-Z0-9]+$/;
/** Largest point amounts: a ledger row holds an int4. */
const MAX_POINTS = 1_000_000_000;

export class AmountRatioDto {
  @ApiProperty({ minimum: 1, description: 'For every this many minor units of the order amount (1000 = 10.00)…', example: 1000 })
  @IsDefined({ message: '$property is required' })
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  every: number;

  @ApiProperty({ minimum: 1, description: '…give this many points.', example: 1 })
  @IsDefined({ message: '$property is required' })
  @IsInt()
  @Min(1)
  @Max(MAX_POINTS)
  points: number;
}

export class OrderRatioDto {
  @ApiProperty({ type: AmountRatioDto })
  @Nested(() => AmountRatioDto, { required: '$property is required', object: true })
  amount: AmountRatioDto;
}

/** FIXED (`points`) or PROPORTIONAL on the order amount (`calculation_type` ORDER_AMOUNT, `order.amount`). */
export class EarningLoyaltyDto {
  @ApiProperty({ enum: ['FIXED', 'PROPORTIONAL'] })
  @IsIn(['FIXED', 'PROPORTIONAL'])
  type: 'FIXED' | 'PROPORTIONAL';

  @ApiPropertyOptional({ minimum: 1, description: 'FIXED only: points per paid order.', example: 10 })
  @ValidateIf((o: EarningLoyaltyDto) => o.type === 'FIXED' || o.points !== undefined)
  @IsDefined({ message: 'points is required for type FIXED' })
  @IsInt()
  @Min(1)
  @Max(MAX_POINTS)
  points?: number;

  @ApiPropertyOptional({ enum: ['ORDER_AMOUNT'], description: 'PROPORTIONAL only: what the ratio applies to (the order amount).' })
  @ValidateIf((o: EarningLoyaltyDto) => o.type === 'PROPORTIONAL' || o.calculation_type !== undefined)
  @IsIn(['ORDER_AMOUNT'], { message: 'calculation_type must be ORDER_AMOUNT (required for type PROPORTIONAL)' })
  calculation_type?: 'ORDER_AMOUNT';

  @ApiPropertyOptional({ type: OrderRatioDto, description: 'PROPORTIONAL only: `floor(amount / every) × points` points per paid order.' })
  @ValidateIf((o: EarningLoyaltyDto) => o.type === 'PROPORTIONAL' || o.order !== undefined)
  @Nested(() => OrderRatioDto, { required: 'order is required for type PROPORTIONAL', object: true })
  order?: OrderRatioDto;
}

export class PendingPointsRuleDto {
  @ApiProperty({ enum: ['DAY'] })
  @IsIn(['DAY'])
  period_type: 'DAY';

  @ApiProperty({ minimum: 1, maximum: 90, description: 'Days the points stay pending before the worker activates them.' })
  @IsInt()
  @Min(1)
  @Max(90)
  period_value: number;
}

export class EarningRuleSourceDto {
  @ApiPropertyOptional({ maxLength: 255, description: 'The rule\'s name.', example: 'Order paid: 10 points' })
  @Optional()
  @IsString()
  @MaxLength(255)
  banner?: string;
}

/** One item of the POST body (an array, as Voucherify takes it). */
export class CreateEarningRuleDto {
  @ApiPropertyOptional({ enum: EARNING_EVENTS, default: 'order.paid' })
  @Optional()
  @IsIn(EARNING_EVENTS, { message: 'event must be order.paid: the only earning event of this service' })
  event?: EarningEvent;

  @ApiProperty({ type: EarningLoyaltyDto })
  @Nested(() => EarningLoyaltyDto, { required: 'loyalty is required', object: true })
  loyalty: EarningLoyaltyDto;

  @ApiPropertyOptional({ type: PendingPointsRuleDto, nullable: true, description: 'Points earned under the rule stay pending this many days; null or absent: straight to the balance.' })
  @Nested(() => PendingPointsRuleDto, { optional: 'nullable', object: true })
  pending_points?: PendingPointsRuleDto | null;

  @ApiPropertyOptional({ type: LoyaltyCardExpirationRulesDto, nullable: true, description: 'When the points this rule credits expire; supersedes the campaign\'s `voucher.loyalty_card.expiration_rules`. Pending points start their clock at activation.' })
  @Nested(() => LoyaltyCardExpirationRulesDto, { optional: 'nullable', object: true })
  expiration_rules?: LoyaltyCardExpirationRulesDto | null;

  @ApiPropertyOptional({ type: EarningRuleSourceDto })
  @Nested(() => EarningRuleSourceDto, { optional: true, object: true })
  source?: EarningRuleSourceDto;

  @ApiPropertyOptional({ default: true })
  @Optional()
  @IsBoolean()
  active?: boolean;

  @ApiPropertyOptional({ format: 'date-time', description: 'The rule earns from this moment (and while its campaign is active).' })
  @Optional()
  @IsDateTime()
  start_date?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'The rule earns until this moment; not before start_date.' })
  @Optional()
  @IsDateTime()
  expiration_date?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @Optional()
  @IsMetadata()
  metadata?: Record<string, unknown>;
}

/** PUT: the fields to change; `null` clears pending_points and the dates. */
export class UpdateEarningRuleDto {
  @ApiPropertyOptional({ type: EarningLoyaltyDto })
  @Nested(() => EarningLoyaltyDto, { optional: true, object: true })
  loyalty?: EarningLoyaltyDto;

  @ApiPropertyOptional({ type: PendingPointsRuleDto, nullable: true, description: 'null removes it: later earnings go straight to the balance (entries already pending stay).' })
  @Nested(() => PendingPointsRuleDto, { optional: 'nullable', object: true })
  pending_points?: PendingPointsRuleDto | null;

  @ApiPropertyOptional({ type: LoyaltyCardExpirationRulesDto, nullable: true, description: 'When the points this rule credits expire; supersedes the campaign\'s `voucher.loyalty_card.expiration_rules`. Pending points start their clock at activation.' })
  @Nested(() => LoyaltyCardExpirationRulesDto, { optional: 'nullable', object: true })
  expiration_rules?: LoyaltyCardExpirationRulesDto | null;

  @ApiPropertyOptional({ type: EarningRuleSourceDto })
  @Nested(() => EarningRuleSourceDto, { optional: true, object: true })
  source?: EarningRuleSourceDto;

  @ApiPropertyOptional()
  @Optional()
  @IsBoolean()
  active?: boolean;

  @ApiPropertyOptional({ type: String, format: 'date-time', nullable: true })
  @IsOptional()
  @IsDateTime()
  start_date?: string | null;

  @ApiPropertyOptional({ type: String, format: 'date-time', nullable: true })
  @IsOptional()
  @IsDateTime()
  expiration_date?: string | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Replaces the rule\'s metadata.' })
  @Optional()
  @IsMetadata()
  metadata?: Record<string, unknown>;
}

export class ListEarningRulesQueryDto extends LimitQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 1000, default: 1 })
  @Optional()
  @QueryInt()
  @IsInt()
  @Min(1)
  @Max(1000)
  page?: number;
}

export class EarningRuleSourceResponseDto {
  @ApiPropertyOptional({ description: 'Absent when the rule has no banner.' })
  banner?: string;

  @ApiProperty({ example: EXAMPLE_IDS.campaign, description: 'The campaign (`camp_…`).' })
  object_id: string;

  @ApiProperty({ enum: ['campaign'] })
  object_type: 'campaign';
}

export class EarningRuleDto {
  @ApiProperty(patternExample(EARNING_RULE_ID, EXAMPLE_IDS.earningRule))
  id: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  updated_at: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'Always null: validation rules are not supported.' })
  validation_rule_id: null;

  @ApiProperty({ type: EarningLoyaltyDto })
  loyalty: EarningLoyalty;

  @ApiProperty({ enum: EARNING_EVENTS })
  event: EarningEvent;

  @ApiProperty({ type: EarningRuleSourceResponseDto })
  source: EarningRuleSourceResponseDto;

  @ApiProperty()
  active: boolean;

  @ApiPropertyOptional({ format: 'date-time', description: 'Absent when the rule earns from its creation.' })
  start_date?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Absent when the rule earns without end.' })
  expiration_date?: string;

  @ApiPropertyOptional({ type: PendingPointsRuleDto, description: 'Absent when the rule\'s points reach the balance at once.' })
  pending_points?: PendingPointsRule;

  @ApiPropertyOptional({ type: LoyaltyCardExpirationRulesDto, description: 'Absent: the campaign\'s expiration rules apply.' })
  expiration_rules?: ExpirationRules;

  @ApiProperty({
    example: `auto_${EXAMPLE_IDS.earningRule.slice(4)}`,
    description: 'Voucherify runs each earning rule as an automation and names it here. This service has no separate automations: the id is derived from the rule\'s id (`auto_` + the part after `ern_`), stable for the rule\'s life.',
  })
  automation_id: string;

  @ApiProperty({ type: 'object', additionalProperties: true })
  metadata: Record<string, unknown>;

  @ApiProperty({ enum: ['earning_rule'] })
  object: 'earning_rule';
}

export class EarningRuleListDto {
  @ApiProperty({ enum: ['list'] })
  object: 'list';

  @ApiProperty({ enum: ['data'] })
  data_ref: 'data';

  @ApiProperty({ type: [EarningRuleDto], description: 'Oldest first.' })
  data: EarningRuleDto[];

  @ApiProperty({ description: 'Earning rules of the campaign, all pages.' })
  total: number;
}

export function toEarningRuleDto(rule: EarningRule): EarningRuleDto {
  return {
    id: rule.id,
    created_at: rule.createdAt.toISOString(),
    updated_at: rule.updatedAt?.toISOString() ?? null,
    validation_rule_id: null,
    loyalty: rule.loyalty,
    event: rule.event,
    source: { ...present('banner', rule.banner), object_id: rule.campaignId, object_type: 'campaign' },
    active: rule.active,
    ...present('start_date', rule.startDate?.toISOString()),
    ...present('expiration_date', rule.expirationDate?.toISOString()),
    ...present('pending_points', rule.pendingPoints),
    ...present('expiration_rules', rule.expirationRules),
    automation_id: `auto_${rule.id.slice(rule.id.indexOf('_') + 1)}`,
    metadata: rule.metadata,
    object: 'earning_rule',
  };
}
