import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { IgnoreUnknownFields } from '../../common/http/validation.pipe.js';
import { CAMPAIGN_TYPES, type CampaignType } from '../campaign.entity.js';
import { AccessSettingsDto, ISO_DURATION, LoyaltyTiersExpirationDto, ValidityHoursDto, ValidityTimeframeDto } from './campaign-settings.dto.js';
import { MAX_NAME_LENGTH, TYPE_MESSAGE } from './create-loyalty-campaign.dto.js';
import { IsDateTime, IsMetadata, Nested, Optional } from '../../common/validation/decorators.js';
import { EXAMPLE_IDS } from '../../common/openapi/examples.js';

const NULL_CLEARS = 'null clears it.';

export class UpdateOptionsDto {
  @ApiPropertyOptional({ description: 'Accepted for compatibility (tiers are not modelled yet).' })
  @Optional()
  @IsBoolean()
  recalculate_tiers?: boolean;
}

/**
 * PUT /v1/loyalties/{campaignId}: a partial update. As in Voucherify, fields outside this schema (name,
 * voucher, …) are ignored rather than rejected; fields inside it are validated.
 */
@IgnoreUnknownFields()
export class UpdateLoyaltyCampaignDto {
  @ApiPropertyOptional({ type: String, format: 'date-time', nullable: true, description: `ISO 8601; ${NULL_CLEARS}` })
  @IsOptional()
  @IsDateTime()
  start_date?: string | null;

  @ApiPropertyOptional({ type: String, format: 'date-time', nullable: true, description: `ISO 8601, not before start_date; ${NULL_CLEARS}` })
  @IsOptional()
  @IsDateTime()
  expiration_date?: string | null;

  @ApiPropertyOptional({ type: ValidityTimeframeDto, nullable: true, description: `Requires a start_date (sent or stored); ${NULL_CLEARS}` })
  @Nested(() => ValidityTimeframeDto, { optional: 'nullable', object: true })
  validity_timeframe?: ValidityTimeframeDto | null;

  @ApiPropertyOptional({ type: [Number], nullable: true, description: `0 Sunday … 6 Saturday; ${NULL_CLEARS}` })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(7)
  @IsInt({ each: true })
  @Min(0, { each: true })
  @Max(6, { each: true })
  validity_day_of_week?: number[] | null;

  @ApiPropertyOptional({ type: ValidityHoursDto, nullable: true, description: NULL_CLEARS })
  @Nested(() => ValidityHoursDto, { optional: 'nullable', object: true })
  validity_hours?: ValidityHoursDto | null;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 10_000, description: NULL_CLEARS })
  @IsOptional()
  @IsString()
  @MaxLength(10_000)
  description?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: `Category name, created on first use. Send this or category_id; ${NULL_CLEARS}` })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_NAME_LENGTH)
  category?: string | null;

  @ApiPropertyOptional({ example: EXAMPLE_IDS.category, type: String, nullable: true, description: `Id of an existing category. Send this or category; ${NULL_CLEARS}` })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  category_id?: string | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Merged into the stored metadata (keys sent replace keys stored).' })
  @Optional()
  @IsMetadata()
  metadata?: Record<string, unknown>;

  @ApiPropertyOptional({ type: [String], nullable: true, description: 'Metadata keys to remove (applied after the merge).' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  unset_metadata_fields?: string[] | null;

  @ApiPropertyOptional({ type: AccessSettingsDto, description: 'Assign/unassign areas and stores; 400 unless the Areas and Stores feature is on.' })
  @Nested(() => AccessSettingsDto, { optional: true, object: true })
  access_settings?: AccessSettingsDto;

  @ApiPropertyOptional({ type: String, nullable: true, description: `ISO 8601 duration; ${NULL_CLEARS}`, example: 'P24D' })
  @IsOptional()
  @IsString()
  @Matches(ISO_DURATION, { message: '$property must be an ISO 8601 duration such as P24D' })
  activity_duration_after_publishing?: string | null;

  @ApiPropertyOptional({ description: 'Accepted and ignored: always true for loyalty campaigns.' })
  @Optional()
  @IsBoolean()
  join_once?: boolean;

  @ApiPropertyOptional()
  @Optional()
  @IsBoolean()
  auto_join?: boolean;

  @ApiPropertyOptional({ enum: CAMPAIGN_TYPES, description: 'AUTO_UPDATE ⇄ STATIC only; STANDALONE is rejected.' })
  @Optional()
  @IsIn(CAMPAIGN_TYPES, { message: TYPE_MESSAGE })
  type?: CampaignType;

  @ApiPropertyOptional({ type: LoyaltyTiersExpirationDto, nullable: true, description: NULL_CLEARS })
  @Nested(() => LoyaltyTiersExpirationDto, { optional: 'nullable', object: true })
  loyalty_tiers_expiration?: LoyaltyTiersExpirationDto | null;

  @ApiPropertyOptional({ type: UpdateOptionsDto })
  @Nested(() => UpdateOptionsDto, { optional: true, object: true })
  options?: UpdateOptionsDto;

  @ApiPropertyOptional({ description: 'Extension: turn the campaign on or off.' })
  @Optional()
  @IsBoolean()
  active?: boolean;

  @ApiPropertyOptional({ description: 'Extension: protect or unprotect. While protected, only `{"protected": false}` is accepted.' })
  @Optional()
  @IsBoolean()
  protected?: boolean;
}
