import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDefined, IsIn, IsInt, IsNumber, IsOptional, IsPositive, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import { EXAMPLE_IDS } from '../../common/openapi/examples.js';
import { LimitQueryDto } from '../../common/pagination/limit-query.dto.js';
import { IsMetadata, Nested, Optional, QueryInt } from '../../common/validation/decorators.js';
import { REWARD_TYPES, type RewardType } from '../reward.entity.js';

/** The most points, units or ratio a reward holds: an int4 column, with room. */
export const MAX_REWARD_NUMBER = 1_000_000_000;

/**
 * Voucherify's create schema types the coin ratios as strings and its SDK sends numbers: a decimal string
 * (`"20"`, `"0.01"`) is read as its number, anything else stays as sent and fails the number checks.
 */
const NUMBER_OR_DECIMAL_STRING = Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^\d{1,12}(\.\d{1,12})?$/.test(value) ? Number(value) : value));

const CAMPAIGN_TYPES_SUPPORTED = ['LOYALTY_PROGRAM'] as const;
const CAMPAIGN_TYPE_MESSAGE =
  'parameters.campaign.type must be LOYALTY_PROGRAM: DISCOUNT_COUPONS and GIFT_VOUCHERS rewards need discount and gift card campaigns, which this service does not have';

export class CampaignRewardParamsDto {
  @ApiProperty({ description: 'The loyalty campaign whose card the reward credits (`camp_…`, or its name): a live campaign of the project.', example: EXAMPLE_IDS.campaign })
  @IsDefined({ message: 'id is required' })
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  id: string;

  @ApiProperty({ minimum: 1, maximum: MAX_REWARD_NUMBER, description: 'Points credited to the customer\'s card in that campaign; below 1 → 400 `invalid_balance`.', example: 100 })
  @IsDefined({ message: 'balance is required' })
  @IsInt()
  @Max(MAX_REWARD_NUMBER)
  balance: number;

  @ApiPropertyOptional({ enum: CAMPAIGN_TYPES_SUPPORTED, description: 'Derived from the campaign (always LOYALTY_PROGRAM here) and answered; may be sent, but only as LOYALTY_PROGRAM.' })
  @Optional()
  @IsIn(CAMPAIGN_TYPES_SUPPORTED, { message: CAMPAIGN_TYPE_MESSAGE })
  type?: 'LOYALTY_PROGRAM';
}

export class CoinRewardParamsDto {
  @ApiProperty({ minimum: 0, exclusiveMinimum: true, description: 'What `points_ratio` points are worth, in units of the order\'s currency (20 = 20.00); a number or a decimal string.', example: 20 })
  @IsDefined({ message: 'exchange_ratio is required' })
  @NUMBER_OR_DECIMAL_STRING
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @IsPositive()
  @Max(MAX_REWARD_NUMBER)
  exchange_ratio: number;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_REWARD_NUMBER, default: 1, description: 'How many points are worth `exchange_ratio`; a whole number (or a string of digits).', example: 100 })
  @Optional()
  @NUMBER_OR_DECIMAL_STRING
  @IsInt()
  @Min(1)
  @Max(MAX_REWARD_NUMBER)
  points_ratio?: number;
}

export class ProductRewardParamsDto {
  @ApiProperty({ description: 'The product of your catalogue (kept as given: this service has no product catalogue).', example: 'prod_mug_large' })
  @IsDefined({ message: 'id is required' })
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  id: string;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'One SKU of the product, kept as given; null or absent: the product itself.', example: 'sku_mug_large_blue' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  sku_id?: string | null;
}

/** Exactly one of the three: the reward's type follows from which (the service checks the "exactly one"). */
export class RewardParamsDto {
  @ApiPropertyOptional({ type: CampaignRewardParamsDto, description: 'CAMPAIGN: points added to the customer\'s card in another loyalty campaign.' })
  @Nested(() => CampaignRewardParamsDto, { optional: true, object: true })
  campaign?: CampaignRewardParamsDto;

  @ApiPropertyOptional({ type: CoinRewardParamsDto, description: 'COIN ("pay with points"): points spent as a discount on an order.' })
  @Nested(() => CoinRewardParamsDto, { optional: true, object: true })
  coin?: CoinRewardParamsDto;

  @ApiPropertyOptional({ type: ProductRewardParamsDto, description: 'MATERIAL: a product (or SKU) the merchant hands over.' })
  @Nested(() => ProductRewardParamsDto, { optional: true, object: true })
  product?: ProductRewardParamsDto;
}

/** PUT: the fields of the reward's own kind to change; those not sent stay. */
export class CampaignRewardParamsPatchDto {
  @ApiPropertyOptional({ description: 'Another live loyalty campaign of the project (`camp_…` or its name).', example: EXAMPLE_IDS.campaign })
  @Optional()
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  id?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_REWARD_NUMBER, description: 'Below 1 → 400 `invalid_balance`.', example: 200 })
  @Optional()
  @IsInt()
  @Max(MAX_REWARD_NUMBER)
  balance?: number;

  @ApiPropertyOptional({ enum: CAMPAIGN_TYPES_SUPPORTED, description: 'May be sent, but only as LOYALTY_PROGRAM.' })
  @Optional()
  @IsIn(CAMPAIGN_TYPES_SUPPORTED, { message: CAMPAIGN_TYPE_MESSAGE })
  type?: 'LOYALTY_PROGRAM';
}

export class CoinRewardParamsPatchDto {
  @ApiPropertyOptional({ minimum: 0, exclusiveMinimum: true, description: 'What `points_ratio` points are worth, in units of the order\'s currency; a number or a decimal string.', example: 25 })
  @Optional()
  @NUMBER_OR_DECIMAL_STRING
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @IsPositive()
  @Max(MAX_REWARD_NUMBER)
  exchange_ratio?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_REWARD_NUMBER, description: 'How many points are worth `exchange_ratio`; a whole number (or a string of digits).', example: 100 })
  @Optional()
  @NUMBER_OR_DECIMAL_STRING
  @IsInt()
  @Min(1)
  @Max(MAX_REWARD_NUMBER)
  points_ratio?: number;
}

export class ProductRewardParamsPatchDto {
  @ApiPropertyOptional({ description: 'Another product of your catalogue, kept as given.', example: 'prod_mug_large' })
  @Optional()
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  id?: string;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'null: the product itself, no SKU.', example: 'sku_mug_large_blue' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  sku_id?: string | null;
}

/** PUT: one object, of the reward's own type (a reward's type does not change). */
export class RewardParamsPatchDto {
  @ApiPropertyOptional({ type: CampaignRewardParamsPatchDto, description: 'A CAMPAIGN reward\'s.' })
  @Nested(() => CampaignRewardParamsPatchDto, { optional: true, object: true })
  campaign?: CampaignRewardParamsPatchDto;

  @ApiPropertyOptional({ type: CoinRewardParamsPatchDto, description: 'A COIN reward\'s.' })
  @Nested(() => CoinRewardParamsPatchDto, { optional: true, object: true })
  coin?: CoinRewardParamsPatchDto;

  @ApiPropertyOptional({ type: ProductRewardParamsPatchDto, description: 'A MATERIAL reward\'s.' })
  @Nested(() => ProductRewardParamsPatchDto, { optional: true, object: true })
  product?: ProductRewardParamsPatchDto;
}

export class RewardAttributesDto {
  @ApiPropertyOptional({ maxLength: 2048, description: 'An image of the reward (an HTTPS URL, kept as given).', example: 'https://example.com/mug.png' })
  @Optional()
  @IsString()
  @MaxLength(2048)
  image_url?: string;

  @ApiPropertyOptional({ maxLength: 10_000, description: 'Free text about the reward, kept as given.', example: 'A mug with the shop\'s logo' })
  @Optional()
  @IsString()
  @MaxLength(10_000)
  description?: string;
}

const STOCK_DESCRIPTION = 'MATERIAL only: the units there are in all (redemptions count in `redeemed`); null or absent: unlimited.';

export class CreateRewardDto {
  @ApiProperty({ maxLength: 255, description: 'What the member sees.', example: 'Coffee mug' })
  @IsDefined({ message: 'name is required' })
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  name: string;

  @ApiPropertyOptional({ enum: REWARD_TYPES, description: 'Follows from `parameters`; when sent it must agree with them (COIN with `parameters.product` → 400).' })
  @Optional()
  @IsIn(REWARD_TYPES)
  type?: RewardType;

  @ApiProperty({ type: RewardParamsDto, description: 'Exactly one of `campaign`, `coin`, `product`.' })
  @Nested(() => RewardParamsDto, { required: 'parameters is required', object: true })
  parameters: RewardParamsDto;

  @ApiPropertyOptional({ type: Number, nullable: true, minimum: 0, maximum: MAX_REWARD_NUMBER, description: STOCK_DESCRIPTION, example: 50 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_REWARD_NUMBER)
  stock?: number | null;

  @ApiPropertyOptional({ type: RewardAttributesDto, description: 'MATERIAL only.' })
  @Nested(() => RewardAttributesDto, { optional: true, object: true })
  attributes?: RewardAttributesDto;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Your own key/value pairs (limits: docs/errors.md).' })
  @Optional()
  @IsMetadata()
  metadata?: Record<string, unknown>;
}

/** PUT /v1/rewards/{rewardId}: the fields to change. */
export class UpdateRewardDto {
  @ApiPropertyOptional({ maxLength: 255, description: 'What the member sees.', example: 'Coffee mug (large)' })
  @Optional()
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  name?: string;

  @ApiPropertyOptional({ enum: REWARD_TYPES, description: 'The reward\'s own type, if sent: a type does not change.' })
  @Optional()
  @IsIn(REWARD_TYPES)
  type?: RewardType;

  @ApiPropertyOptional({ type: RewardParamsPatchDto, description: 'The object of the reward\'s own type; the fields sent replace those stored, the others stay.' })
  @Nested(() => RewardParamsPatchDto, { optional: true, object: true })
  parameters?: RewardParamsPatchDto;

  @ApiPropertyOptional({ type: Number, nullable: true, minimum: 0, maximum: MAX_REWARD_NUMBER, description: `${STOCK_DESCRIPTION} Not below \`redeemed\`.`, example: 60 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_REWARD_NUMBER)
  stock?: number | null;

  @ApiPropertyOptional({ type: RewardAttributesDto, description: 'MATERIAL only; replaces the attributes.' })
  @Nested(() => RewardAttributesDto, { optional: true, object: true })
  attributes?: RewardAttributesDto;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Replaces the reward\'s metadata.' })
  @Optional()
  @IsMetadata()
  metadata?: Record<string, unknown>;
}

export class ListPageQueryDto extends LimitQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 1000, default: 1 })
  @Optional()
  @QueryInt()
  @IsInt()
  @Min(1)
  @Max(1000)
  page?: number;
}

export class ListRewardsQueryDto extends ListPageQueryDto {
  @ApiPropertyOptional({ maxLength: 255, description: 'Only the reward of this assignment (`rewa_…`).' })
  @Optional()
  @IsString()
  @MaxLength(255)
  assignment_id?: string;
}
