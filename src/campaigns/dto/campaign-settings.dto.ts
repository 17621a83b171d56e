import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateBy,
  ValidateIf,
} from 'class-validator';
import { Nested, Optional } from '../../common/validation/decorators.js';

/** ISO 8601 duration such as `P24D`, `PT1H` or `P1Y2M3DT4H5M6S` (at least one component). */
export const ISO_DURATION = /^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(?:\.\d+)?S)?)?$/;
const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/;
const DAYS_OF_WEEK = 'Days of the week: 0 Sunday, 1 Monday, … 6 Saturday.';

export const MAX_CODE_LENGTH = 64;
export const MAX_CHARSET_LENGTH = 256;
export const MAX_AFFIX_LENGTH = 32;
export const ALPHANUMERIC = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

export class ValidityTimeframeDto {
  @ApiProperty({ description: 'ISO 8601 duration of each active period, counted from start_date.', example: 'PT1H' })
  @IsString()
  @Matches(ISO_DURATION, { message: '$property must be an ISO 8601 duration such as PT1H' })
  duration: string;

  @ApiProperty({ description: 'ISO 8601 duration between the starts of two active periods.', example: 'P2D' })
  @IsString()
  @Matches(ISO_DURATION, { message: '$property must be an ISO 8601 duration such as P2D' })
  interval: string;
}

export class ValidityHoursDailyDto {
  @ApiProperty({ description: 'Start of the daily window, HH:mm.', example: '12:00' })
  @IsString()
  @Matches(HH_MM, { message: '$property must be a time HH:mm' })
  start_time: string;

  @ApiProperty({ description: `Days the window applies to. ${DAYS_OF_WEEK}`, type: [Number], example: [1, 2, 3] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(7)
  @IsInt({ each: true })
  @Min(0, { each: true })
  @Max(6, { each: true })
  days_of_week: number[];

  @ApiProperty({ description: 'End of the daily window, HH:mm.', example: '14:00' })
  @IsString()
  @Matches(HH_MM, { message: '$property must be a time HH:mm' })
  expiration_time: string;
}

export class ValidityHoursDto {
  @ApiProperty({ type: [ValidityHoursDailyDto], description: 'Daily windows of validity (for example happy hours).' })
  @Nested(() => ValidityHoursDailyDto, { each: true, maxItems: 50 })
  daily: ValidityHoursDailyDto[];
}

export const EXPIRATION_PERIOD_TYPES = ['FIXED_DAY_OF_YEAR', 'MONTH'] as const;
export const EXPIRATION_ROUNDING_TYPES = ['END_OF_MONTH', 'END_OF_QUARTER', 'END_OF_HALF_YEAR', 'END_OF_YEAR', 'PARTICULAR_MONTH'] as const;

export class LoyaltyCardExpirationRulesDto {
  @ApiProperty({ enum: EXPIRATION_PERIOD_TYPES })
  @IsIn(EXPIRATION_PERIOD_TYPES)
  period_type: (typeof EXPIRATION_PERIOD_TYPES)[number];

  @ApiPropertyOptional({ description: 'Number of months points stay valid; required when period_type is MONTH.', minimum: 1 })
  @ValidateIf((o: LoyaltyCardExpirationRulesDto) => o.period_type === 'MONTH' || o.period_value !== undefined)
  @IsInt()
  @Min(1)
  @Max(1200)
  period_value?: number;

  @ApiPropertyOptional({ enum: EXPIRATION_ROUNDING_TYPES })
  @Optional()
  @IsIn(EXPIRATION_ROUNDING_TYPES)
  rounding_type?: (typeof EXPIRATION_ROUNDING_TYPES)[number];

  @ApiPropertyOptional({ description: 'Required when rounding_type is set (for PARTICULAR_MONTH, the month 1-12).' })
  @ValidateIf((o: LoyaltyCardExpirationRulesDto) => o.rounding_type !== undefined || o.rounding_value !== undefined)
  @IsInt()
  @Min(0)
  @Max(12)
  // A month number: 0 would name no month, and the expiry date of every credit would fail.
  @ValidateBy({
    name: 'particularMonth',
    validator: {
      validate: (value: unknown, args) => (args?.object as LoyaltyCardExpirationRulesDto).rounding_type !== 'PARTICULAR_MONTH' || (typeof value === 'number' && value >= 1),
      defaultMessage: () => 'rounding_value must be a month 1-12 when rounding_type is PARTICULAR_MONTH',
    },
  })
  rounding_value?: number;

  @ApiPropertyOptional({ description: 'Month of the fixed expiry day; required for FIXED_DAY_OF_YEAR.', minimum: 1, maximum: 12 })
  @ValidateIf((o: LoyaltyCardExpirationRulesDto) => o.period_type === 'FIXED_DAY_OF_YEAR' || o.fixed_month !== undefined)
  @IsInt()
  @Min(1)
  @Max(12)
  fixed_month?: number;

  @ApiPropertyOptional({ description: 'Day of the fixed expiry day; required for FIXED_DAY_OF_YEAR.', minimum: 1, maximum: 31 })
  @ValidateIf((o: LoyaltyCardExpirationRulesDto) => o.period_type === 'FIXED_DAY_OF_YEAR' || o.fixed_day !== undefined)
  @IsInt()
  @Min(1)
  @Max(31)
  fixed_day?: number;
}

export class LoyaltyCardDto {
  @ApiProperty({ description: 'Points every new card starts with.', minimum: 0, example: 0 })
  @IsInt()
  @Min(0)
  @Max(1_000_000_000)
  points: number;

  @ApiPropertyOptional({ type: LoyaltyCardExpirationRulesDto, description: 'When earned points expire.' })
  @Nested(() => LoyaltyCardExpirationRulesDto, { optional: true })
  expiration_rules?: LoyaltyCardExpirationRulesDto;
}

export class RedemptionDto {
  @ApiPropertyOptional({ type: Number, nullable: true, minimum: 1, description: 'How many times a card can be redeemed; null = unlimited.' })
  @IsOptional()
  @IsInt()
  @Min(1)
  quantity?: number | null;
}

export class CodeConfigDto {
  @ApiPropertyOptional({ description: 'Number of random characters (prefix and postfix excluded). Ignored when pattern is set: the pattern\'s `#` count wins.', minimum: 1, maximum: MAX_CODE_LENGTH, default: 8 })
  @Optional()
  @IsInt()
  @Min(1)
  @Max(MAX_CODE_LENGTH)
  length?: number;

  @ApiPropertyOptional({ description: `Characters to draw from (duplicates ignored, at most ${MAX_CHARSET_LENGTH} distinct).`, default: ALPHANUMERIC })
  @Optional()
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_CHARSET_LENGTH * 2)
  charset?: string;

  @ApiPropertyOptional({ description: 'Text put before every code.', maxLength: MAX_AFFIX_LENGTH })
  @Optional()
  @IsString()
  @MaxLength(MAX_AFFIX_LENGTH)
  prefix?: string;

  @ApiPropertyOptional({ description: 'Text put after every code.', maxLength: MAX_AFFIX_LENGTH })
  @Optional()
  @IsString()
  @MaxLength(MAX_AFFIX_LENGTH)
  postfix?: string;

  @ApiPropertyOptional({ description: 'Code template: each `#` becomes a random charset character, anything else is kept. Overrides length.', example: 'L-CARD-#######' })
  @Optional()
  @IsString()
  @Matches(/#/, { message: '$property must contain at least one # placeholder' })
  @MaxLength(MAX_CODE_LENGTH * 2)
  pattern?: string;

  @ApiPropertyOptional({ description: 'Accepted for compatibility and ignored (internal to Voucherify).' })
  @Optional()
  @IsInt()
  initial_count?: number;
}

export class CampaignLoyaltyVoucherDto {
  @ApiPropertyOptional({ enum: ['LOYALTY_CARD'], default: 'LOYALTY_CARD' })
  @Optional()
  @IsIn(['LOYALTY_CARD'])
  type?: 'LOYALTY_CARD';

  @ApiPropertyOptional({ type: LoyaltyCardDto, description: 'Card settings; `{points: 0}` when omitted.' })
  @Nested(() => LoyaltyCardDto, { optional: true })
  loyalty_card?: LoyaltyCardDto;

  @ApiPropertyOptional({ type: RedemptionDto })
  @Nested(() => RedemptionDto, { optional: true })
  redemption?: RedemptionDto;

  @ApiPropertyOptional({ type: CodeConfigDto, description: 'How card codes are made; defaults: length 8, alphanumeric charset, pattern ########.' })
  @Nested(() => CodeConfigDto, { optional: true })
  code_config?: CodeConfigDto;
}

export class AreaStoreRefsDto {
  @ApiPropertyOptional({ type: [String], description: 'Area ids.' })
  @Optional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  areas_ids?: string[];

  @ApiPropertyOptional({ type: [String], description: 'Store ids.' })
  @Optional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  area_stores_ids?: string[];

  @ApiPropertyOptional({ type: [String], description: 'Area ids whose every store is assigned.' })
  @Optional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  area_all_stores_ids?: string[];
}

export class AccessSettingsDto {
  @ApiPropertyOptional({ type: AreaStoreRefsDto })
  @Nested(() => AreaStoreRefsDto, { optional: true })
  assign?: AreaStoreRefsDto;

  @ApiPropertyOptional({ type: AreaStoreRefsDto })
  @Nested(() => AreaStoreRefsDto, { optional: true })
  unassign?: AreaStoreRefsDto;
}

export const QUALIFICATION_TYPES = ['BALANCE', 'POINTS_IN_PERIOD'] as const;
export const QUALIFICATION_PERIODS = ['MONTH', 'QUARTER', 'HALF_YEAR', 'YEAR'] as const;
export const TIER_START_TYPES = ['IMMEDIATE', 'NEXT_PERIOD'] as const;
export const TIER_EXPIRATION_TYPES = ['END_OF_PERIOD', 'END_OF_NEXT_PERIOD', 'BALANCE_DROP', 'CUSTOM'] as const;
export const TIER_ROUNDING_TYPES = ['MONTH', 'QUARTER', 'HALF_YEAR', 'YEAR', 'CUSTOM'] as const;

export class TierStartDateDto {
  @ApiProperty({ enum: TIER_START_TYPES })
  @IsIn(TIER_START_TYPES)
  type: (typeof TIER_START_TYPES)[number];
}

export class TierRoundingDto {
  @ApiPropertyOptional({ enum: TIER_ROUNDING_TYPES })
  @Optional()
  @IsIn(TIER_ROUNDING_TYPES)
  type?: (typeof TIER_ROUNDING_TYPES)[number];

  @ApiPropertyOptional({ enum: ['START', 'END'] })
  @Optional()
  @IsIn(['START', 'END'])
  strategy?: 'START' | 'END';

  @ApiPropertyOptional({ enum: ['MONTH'], default: 'MONTH' })
  @Optional()
  @IsIn(['MONTH'])
  unit?: 'MONTH';

  @ApiPropertyOptional({ minimum: 0, maximum: 11, description: '0 = January.' })
  @Optional()
  @IsInt()
  @Min(0)
  @Max(11)
  value?: number;
}

export class TierExpirationDateDto {
  @ApiProperty({ enum: TIER_EXPIRATION_TYPES })
  @IsIn(TIER_EXPIRATION_TYPES)
  type: (typeof TIER_EXPIRATION_TYPES)[number];

  @ApiProperty({ description: 'ISO 8601 duration added to the expiry.', example: 'P1M' })
  @IsString()
  @Matches(ISO_DURATION, { message: '$property must be an ISO 8601 duration such as P1M' })
  extend: string;

  @ApiPropertyOptional({ type: TierRoundingDto })
  @Nested(() => TierRoundingDto, { optional: true })
  rounding?: TierRoundingDto;
}

export class LoyaltyTiersExpirationDto {
  @ApiProperty({ enum: QUALIFICATION_TYPES })
  @IsIn(QUALIFICATION_TYPES)
  qualification_type: (typeof QUALIFICATION_TYPES)[number];

  @ApiPropertyOptional({ enum: QUALIFICATION_PERIODS, description: 'Required when qualification_type is POINTS_IN_PERIOD.' })
  @ValidateIf((o: LoyaltyTiersExpirationDto) => o.qualification_type === 'POINTS_IN_PERIOD' || o.qualification_period !== undefined)
  @IsIn(QUALIFICATION_PERIODS)
  qualification_period?: (typeof QUALIFICATION_PERIODS)[number];

  @ApiProperty({ type: TierStartDateDto })
  @Nested(() => TierStartDateDto, { object: true })
  start_date: TierStartDateDto;

  @ApiProperty({ type: TierExpirationDateDto })
  @Nested(() => TierExpirationDateDto, { object: true })
  expiration_date: TierExpirationDateDto;
}
