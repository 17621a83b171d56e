import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import { OptionalBody } from '../../common/http/validation.pipe.js';
import { EXAMPLE_IDS, patternExample } from '../../common/openapi/examples.js';
import { LimitQueryDto } from '../../common/pagination/limit-query.dto.js';
import { IsMetadata, Nested, Optional, QueryInt } from '../../common/validation/decorators.js';
import { UpsertCustomerDto } from '../../customers/dto/customer.dto.js';
import { DateRangeQueryDto } from '../../members/dto/loyalty-member.dto.js';
import { CreateOrderDto } from '../../points/orders/dto/order.dto.js';

export const REDEMPTION_ID = /^r_[a-f0-9]+$/;
export const ROLLBACK_ID = /^rr_[a-f0-9]+$/;
/** The most points one redemption spends (a card's balance is a bigint, a reward's price an int4). */
export const MAX_REDEEM_POINTS = 1_000_000_000;

const OBJECT = { type: 'object', additionalProperties: true } as const;

export class RedeemRewardRefDto {
  @ApiProperty({ description: 'The reward (`rew_…`): it must be offered (assigned) in the card\'s campaign.', example: EXAMPLE_IDS.reward })
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  id: string;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: MAX_REDEEM_POINTS,
    description: 'COIN only: the points to spend (at most the balance). Absent: the card pays the whole order, in whole `points_ratio` units, at most its balance. Ignored for other rewards (their price is the assignment\'s).',
    example: 100,
  })
  @Optional()
  @IsInt()
  @Min(1)
  @Max(MAX_REDEEM_POINTS)
  points?: number;
}

/** POST /v1/loyalties/[{campaignId}/]members/{memberId}/redemption: Voucherify's `LoyaltiesMembersRedemptionRedeemRequestBody`. */
export class RedeemRewardDto {
  @ApiPropertyOptional({ type: RedeemRewardRefDto, description: 'The reward to redeem; required (absent: 400 `missing_reward`).' })
  @Nested(() => RedeemRewardRefDto, { optional: true, object: true })
  reward?: RedeemRewardRefDto;

  @ApiPropertyOptional({ type: CreateOrderDto, description: 'COIN: required (absent: 400 `missing_order`): the order the points pay for, upserted as POST /v1/orders does (by `id` or `source_id`), without earning. Ignored for other rewards.' })
  @Nested(() => CreateOrderDto, { optional: true, object: true })
  order?: CreateOrderDto;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Stored on the redemption and answered.' })
  @Optional()
  @IsMetadata()
  metadata?: Record<string, unknown>;
}

/** POST /v1/redemptions/{redemptionId}/rollback: the optional body (the SDK sends `{}` or `{customer}`; none is `{}`). */
@OptionalBody()
export class RollbackBodyDto {
  @ApiPropertyOptional({ type: UpsertCustomerDto, description: 'Accepted as Voucherify\'s SDK sends it; the rollback is the redemption\'s customer\'s.' })
  @Nested(() => UpsertCustomerDto, { optional: true, object: true })
  customer?: UpsertCustomerDto;

  @ApiPropertyOptional({ ...OBJECT, description: 'Accepted and ignored: the order stays as it is.' })
  @Optional()
  @IsMetadata()
  order?: Record<string, unknown>;

  @ApiPropertyOptional({ ...OBJECT, description: 'Stored on the rollback and answered.' })
  @Optional()
  @IsMetadata()
  metadata?: Record<string, unknown>;
}

export class RollbackQueryDto {
  @ApiPropertyOptional({ maxLength: 1000, description: 'Why: kept on the rollback (`reason`).' })
  @Optional()
  @IsString()
  @MaxLength(1000)
  reason?: string;

  @ApiPropertyOptional({ maxLength: 255, description: 'The rollback\'s `tracking_id` (the redemption\'s by default).' })
  @Optional()
  @IsString()
  @MaxLength(255)
  tracking_id?: string;
}

export const REDEMPTION_RESULTS = ['SUCCESS', 'FAILURE'] as const;

export class ListRedemptionsQueryDto extends LimitQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 1000, default: 1 })
  @Optional()
  @QueryInt()
  @IsInt()
  @Min(1)
  @Max(1000)
  page?: number;

  @ApiPropertyOptional({ enum: REDEMPTION_RESULTS, description: 'SUCCESS: every redemption and rollback (all are successes); FAILURE: none (refused redemptions are not stored).' })
  @Optional()
  @IsIn(REDEMPTION_RESULTS)
  result?: (typeof REDEMPTION_RESULTS)[number];

  @ApiPropertyOptional({ maxLength: 255, description: 'A campaign (id or name): the redemptions with its cards.' })
  @Optional()
  @IsString()
  @MaxLength(255)
  campaign?: string;

  @ApiPropertyOptional({ maxLength: 255, description: 'A customer (id or source_id).' })
  @Optional()
  @IsString()
  @MaxLength(255)
  customer?: string;

  @ApiPropertyOptional({ maxLength: 255, description: 'An order (id or source_id): the COIN redemptions that paid it.' })
  @Optional()
  @IsString()
  @MaxLength(255)
  order?: string;

  @ApiPropertyOptional({ type: DateRangeQueryDto, description: 'created_at[before], created_at[after] (ISO 8601).' })
  @Nested(() => DateRangeQueryDto, { optional: true, object: true })
  created_at?: DateRangeQueryDto;
}

export class RedemptionChannelDto {
  @ApiProperty({ description: 'The application key\'s app id, or the key\'s name.', example: EXAMPLE_IDS.app })
  channel_id: string;

  @ApiProperty({ enum: ['API'], description: 'Always API here.' })
  channel_type: 'API';
}

export class RedemptionRollbackRefDto {
  @ApiProperty(patternExample(ROLLBACK_ID, EXAMPLE_IDS.rollback))
  id: string;

  @ApiProperty({ format: 'date-time', description: 'When it was rolled back.' })
  date: string;
}

export class RelatedRedemptionsDto {
  @ApiProperty({ type: [RedemptionRollbackRefDto], description: 'The rollback of this redemption (at most one).' })
  rollbacks: RedemptionRollbackRefDto[];

  @ApiProperty({ type: [Object], description: 'Always empty (no stacked redemptions here).' })
  redemptions: never[];
}

export class RedemptionLoyaltyCardDto {
  @ApiProperty({ description: 'Points the redemption took from the card (a rollback: the negative, given back).', example: 100 })
  points: number;
}

/** Voucherify's redemption (`MembersRedemption`, `RedemptionBase` + `voucher`) of a reward with a loyalty card. */
export class LoyaltyRedemptionDto {
  @ApiProperty(patternExample(REDEMPTION_ID, EXAMPLE_IDS.redemption))
  id: string;

  @ApiProperty({ enum: ['redemption'] })
  object: 'redemption';

  @ApiProperty({ format: 'date-time', description: 'When it was made.' })
  date: string;

  @ApiProperty({ type: String, nullable: true, example: EXAMPLE_IDS.customer, description: 'The card\'s holder.' })
  customer_id: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The customer\'s source_id, as Voucherify tracks it.' })
  tracking_id: string | null;

  @ApiProperty({ ...OBJECT, nullable: true, description: 'As sent; null when none.' })
  metadata: Record<string, unknown> | null;

  @ApiProperty({ description: 'Points spent.', example: 100 })
  amount: number;

  @ApiProperty({ enum: ['SUCCESS'], description: 'Always SUCCESS: a refused redemption is an error answer, not stored.' })
  result: 'SUCCESS';

  @ApiProperty({ enum: ['SUCCEEDED', 'ROLLED_BACK'], description: 'ROLLED_BACK once rolled back.' })
  status: 'SUCCEEDED' | 'ROLLED_BACK';

  @ApiProperty({ ...OBJECT, nullable: true, description: 'COIN: the order with `discount_amount`, `total_discount_amount`, `applied_discount_amount`, `total_amount` (after the discount) and `redemptions`; else null.' })
  order: Record<string, unknown> | null;

  @ApiProperty({ ...OBJECT, nullable: true, description: 'The customer: id, name, email, source_id, metadata, object.' })
  customer: Record<string, unknown> | null;

  @ApiProperty({ enum: ['voucher'] })
  related_object_type: 'voucher';

  @ApiProperty({ example: EXAMPLE_IDS.card, description: 'The card (`v_…`).' })
  related_object_id: string;

  @ApiProperty({ ...OBJECT, description: 'The card right after the redemption (the v1 voucher object): `loyalty_card.balance`, `redemption.redeemed_points`, `redemption.redeemed_quantity`.' })
  voucher: Record<string, unknown>;

  @ApiProperty({
    ...OBJECT,
    description: 'The reward (id, name, type, parameters, created_at, updated_at, object) with `assignment_id`; a MATERIAL reward\'s `product` (and `sku`); a CAMPAIGN reward\'s `voucher`: the card credited in the other campaign.',
  })
  reward: Record<string, unknown>;

  @ApiProperty({ type: RedemptionLoyaltyCardDto })
  loyalty_card: RedemptionLoyaltyCardDto;

  @ApiProperty({ type: RedemptionChannelDto })
  channel: RedemptionChannelDto;

  @ApiProperty({ type: RelatedRedemptionsDto })
  related_redemptions: RelatedRedemptionsDto;
}

/** Voucherify's `RedemptionRollback`. */
export class RedemptionRollbackDto {
  @ApiProperty(patternExample(ROLLBACK_ID, EXAMPLE_IDS.rollback))
  id: string;

  @ApiProperty({ enum: ['redemption_rollback'] })
  object: 'redemption_rollback';

  @ApiProperty({ format: 'date-time', description: 'When it was rolled back.' })
  date: string;

  @ApiProperty({ type: String, nullable: true, example: EXAMPLE_IDS.customer })
  customer_id: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The `tracking_id` query parameter, or the redemption\'s.' })
  tracking_id: string | null;

  @ApiProperty({ ...OBJECT, nullable: true, description: 'The body\'s metadata; null when none.' })
  metadata: Record<string, unknown> | null;

  @ApiProperty({ description: 'The negative of the points given back.', example: -100 })
  amount: number;

  @ApiProperty({ description: 'The redemption rolled back.', ...patternExample(REDEMPTION_ID, EXAMPLE_IDS.redemption) })
  redemption: string;

  @ApiProperty({ type: String, nullable: true, description: 'The `reason` query parameter.' })
  reason: string | null;

  @ApiProperty({ enum: ['SUCCESS'] })
  result: 'SUCCESS';

  @ApiProperty({ enum: ['SUCCEEDED'] })
  status: 'SUCCEEDED';

  @ApiProperty({ ...OBJECT, nullable: true, description: 'The redemption\'s order, as it was (a COIN redemption); else null.' })
  order: Record<string, unknown> | null;

  @ApiProperty({ ...OBJECT, nullable: true, description: 'The customer.' })
  customer: Record<string, unknown> | null;

  @ApiProperty({ enum: ['voucher'] })
  related_object_type: 'voucher';

  @ApiProperty({ example: EXAMPLE_IDS.card })
  related_object_id: string;

  @ApiProperty({ ...OBJECT, description: 'The card right after the rollback.' })
  voucher: Record<string, unknown>;

  @ApiProperty({ ...OBJECT, description: 'The reward, as in the redemption.' })
  reward: Record<string, unknown>;

  @ApiProperty({ type: RedemptionLoyaltyCardDto })
  loyalty_card: RedemptionLoyaltyCardDto;

  @ApiProperty({ type: RedemptionChannelDto })
  channel: RedemptionChannelDto;
}

export class RedemptionListDto {
  @ApiProperty({ enum: ['list'] })
  object: 'list';

  @ApiProperty({ enum: ['redemptions'] })
  data_ref: 'redemptions';

  @ApiProperty({ type: [Object], description: 'Redemptions and rollbacks (LoyaltyRedemptionDto, RedemptionRollbackDto), newest first.' })
  redemptions: (LoyaltyRedemptionDto | RedemptionRollbackDto)[];

  @ApiProperty({ description: 'How many match, all pages.' })
  total: number;
}

/** GET /v1/vouchers/{code}/redemption: Voucherify's `VouchersRedemptionGetResponseBody`. */
export class VoucherRedemptionsDto {
  @ApiProperty({ type: Number, nullable: true, description: 'Always null: a loyalty card has no redemption limit.' })
  quantity: null;

  @ApiProperty({ description: 'Redemptions with the card, less those rolled back.' })
  redeemed_quantity: number;

  @ApiProperty({ enum: ['list'] })
  object: 'list';

  @ApiProperty({ description: 'This list\'s path.', example: '/v1/vouchers/L-7Kq2-9xZ4/redemption?page=1&limit=10' })
  url: string;

  @ApiProperty({ enum: ['redemption_entries'] })
  data_ref: 'redemption_entries';

  @ApiProperty({ description: 'Redemptions and rollbacks with the card.' })
  total: number;

  @ApiProperty({ type: [Object], description: 'The card\'s redemptions and rollbacks, newest first (the first 100).' })
  redemption_entries: (LoyaltyRedemptionDto | RedemptionRollbackDto)[];
}
