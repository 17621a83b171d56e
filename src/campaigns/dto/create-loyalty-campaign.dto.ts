import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { CAMPAIGN_TYPES, type CampaignType } from '../campaign.entity.js';
import {
  AccessSettingsDto,
  CampaignLoyaltyVoucherDto,
  ISO_DURATION,
  LoyaltyTiersExpirationDto,
  ValidityHoursDto,
  ValidityTimeframeDto,
} from './campaign-settings.dto.js';
import { IsDateTime, IsMetadata, Nested, Optional } from '../../common/validation/decorators.js';
import { EXAMPLE_IDS } from '../../common/openapi/examples.js';

/** Largest `vouchers_count` one request may ask for (see docs/decisions.md, "Loyalty campaigns"). */
export const MAX_VOUCHERS_COUNT = 1_000_000;
export const MAX_NAME_LENGTH = 200;

export const TYPE_MESSAGE =
  'type must be AUTO_UPDATE or STATIC: STANDALONE is a single-voucher type for discount and gift card campaigns, not for loyalty campaigns';

/** POST /v1/loyalties. Unknown fields are rejected (docs/errors.md). */
export class CreateLoyaltyCampaignDto {
  @ApiProperty({ description: 'Campaign name, unique among the project\'s campaigns.', maxLength: MAX_NAME_LENGTH, example: 'Summer Loyalty' })
  @IsDefined({ message: 'name is required' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_NAME_LENGTH)
  name: string;

  @ApiPropertyOptional({ description: 'Free text about the campaign.', maxLength: 10_000 })
  @Optional()
  @IsString()
  @MaxLength(10_000)
  description?: string;

  @ApiPropertyOptional({
    enum: [...CAMPAIGN_TYPES, 'STANDALONE'],
    default: 'AUTO_UPDATE',
    description: 'AUTO_UPDATE: cards can be added after creation (one per new member). STATIC: only the generated cards. STANDALONE is rejected for loyalty campaigns.',
  })
  @Optional()
  @IsIn(CAMPAIGN_TYPES, { message: TYPE_MESSAGE })
  type?: CampaignType;

  @ApiPropertyOptional({ description: 'Accepted for compatibility; always stored as true for loyalty campaigns.', default: true })
  @Optional()
  @IsBoolean()
  join_once?: boolean;

  @ApiPropertyOptional({ description: 'Customers join automatically when they fulfil an earning rule.', default: false })
  @Optional()
  @IsBoolean()
  auto_join?: boolean;

  @ApiPropertyOptional({ description: 'Use the voucher metadata schema instead of the campaign one.', default: false })
  @Optional()
  @IsBoolean()
  use_voucher_metadata_schema?: boolean;

  @ApiPropertyOptional({ description: `Number of loyalty cards to generate, in the background (0-${MAX_VOUCHERS_COUNT}).`, minimum: 0, maximum: MAX_VOUCHERS_COUNT, default: 0 })
  @Optional()
  @IsInt()
  @Min(0)
  @Max(MAX_VOUCHERS_COUNT)
  vouchers_count?: number;

  @ApiPropertyOptional({ format: 'date-time', description: 'The campaign is inactive before this moment (ISO 8601).' })
  @Optional()
  @IsDateTime()
  start_date?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'The campaign is inactive after this moment (ISO 8601); not before start_date.' })
  @Optional()
  @IsDateTime()
  expiration_date?: string;

  @ApiPropertyOptional({ type: ValidityTimeframeDto, description: 'Recurring active periods; requires start_date.' })
  @Nested(() => ValidityTimeframeDto, { optional: true, object: true })
  validity_timeframe?: ValidityTimeframeDto;

  @ApiPropertyOptional({ type: [Number], description: 'Days the campaign is valid: 0 Sunday … 6 Saturday.', example: [1, 2, 3, 4, 5] })
  @Optional()
  @IsArray()
  @ArrayMaxSize(7)
  @IsInt({ each: true })
  @Min(0, { each: true })
  @Max(6, { each: true })
  validity_day_of_week?: number[];

  @ApiPropertyOptional({ type: ValidityHoursDto })
  @Nested(() => ValidityHoursDto, { optional: true, object: true })
  validity_hours?: ValidityHoursDto;

  @ApiPropertyOptional({ description: 'ISO 8601 duration the campaign stays active after publishing.', example: 'P24D' })
  @Optional()
  @IsString()
  @Matches(ISO_DURATION, { message: '$property must be an ISO 8601 duration such as P24D' })
  activity_duration_after_publishing?: string;

  @ApiPropertyOptional({ example: EXAMPLE_IDS.category, description: 'Id of an existing category (`cat_…`). Send this or `category`, not both.' })
  @Optional()
  @IsString()
  @IsNotEmpty()
  category_id?: string;

  @ApiPropertyOptional({ description: 'Category name; created on first use. Send this or `category_id`, not both.', maxLength: MAX_NAME_LENGTH })
  @Optional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_NAME_LENGTH)
  category?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Custom attributes.' })
  @Optional()
  @IsMetadata()
  metadata?: Record<string, unknown>;

  @ApiPropertyOptional({ type: AccessSettingsDto, description: 'Areas and Stores assignments; 400 unless the project has the Areas and Stores feature on.' })
  @Nested(() => AccessSettingsDto, { optional: true, object: true })
  access_settings?: AccessSettingsDto;

  @ApiPropertyOptional({ enum: ['LOYALTY_PROGRAM'], default: 'LOYALTY_PROGRAM' })
  @Optional()
  @IsIn(['LOYALTY_PROGRAM'])
  campaign_type?: 'LOYALTY_PROGRAM';

  @ApiPropertyOptional({ type: CampaignLoyaltyVoucherDto })
  @Nested(() => CampaignLoyaltyVoucherDto, { optional: true, object: true })
  voucher?: CampaignLoyaltyVoucherDto;

  @ApiPropertyOptional({ type: LoyaltyTiersExpirationDto, description: 'Sent in Voucherify\'s own create example; accepted and stored.' })
  @Nested(() => LoyaltyTiersExpirationDto, { optional: true, object: true })
  loyalty_tiers_expiration?: LoyaltyTiersExpirationDto;

  @ApiPropertyOptional({ description: 'Switch for the campaign: false turns it off even between start_date and expiration_date.', default: true })
  @Optional()
  @IsBoolean()
  active?: boolean;

  @ApiPropertyOptional({ description: 'Extension: a protected campaign cannot be deleted or modified until `protected` is set back to false.', default: false })
  @Optional()
  @IsBoolean()
  protected?: boolean;
}
