import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsString, Matches, Max, MaxLength, Min, NotEquals } from 'class-validator';
import { LimitQueryDto } from '../../../common/pagination/limit-query.dto.js';
import { Optional, QueryInt } from '../../../common/validation/decorators.js';
import { EXAMPLE_IDS } from '../../../common/openapi/examples.js';
import { RelatedVoucherDto } from '../../pending/dto/pending-points.dto.js';
import type { BucketView } from '../../buckets/bucket.repository.js';

export const POINTS_EXPIRATION_TYPES = ['PROGRAM_RULES', 'NON_EXPIRING', 'CUSTOM_DATE'] as const;
export type PointsExpirationType = (typeof POINTS_EXPIRATION_TYPES)[number];
/** Largest change by hand: a ledger row's points stay far inside a JSON number's exact range. */
const MAX_CHANGE = 1_000_000_000;
export const MAX_BUCKET_PAGE = 1000;

/** POST …/members/{memberId}/balance (Voucherify's `LoyaltiesMembersBalanceUpdateRequestBody`). */
export class BalanceChangeDto {
  @ApiProperty({ description: 'Points to add (positive) or remove (negative); not 0.', example: 100, minimum: -MAX_CHANGE, maximum: MAX_CHANGE })
  @IsInt()
  @NotEquals(0, { message: 'points must not be 0' })
  @Min(-MAX_CHANGE)
  @Max(MAX_CHANGE)
  points: number;

  @ApiPropertyOptional({
    enum: POINTS_EXPIRATION_TYPES,
    default: 'PROGRAM_RULES',
    description: 'Added points only. PROGRAM_RULES: the campaign\'s `expiration_rules` (none: they never expire); NON_EXPIRING; CUSTOM_DATE: on `expiration_date`.',
  })
  @Optional()
  @IsIn(POINTS_EXPIRATION_TYPES)
  expiration_type?: PointsExpirationType;

  @ApiPropertyOptional({
    format: 'date',
    example: '2027-01-31',
    description: 'The last day the added points can be spent (`YYYY-MM-DD`; a date-time gives its date), in the project\'s time zone; required for and only for CUSTOM_DATE; not before today (`invalid_expiration_date`).',
  })
  @Optional()
  @IsString()
  @Matches(/^\d{4}-\d{2}-\d{2}(T[0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/, { message: 'expiration_date must be a date YYYY-MM-DD' })
  expiration_date?: string;

  @ApiPropertyOptional({ description: 'Why the points were added or removed; kept on the ledger row (`reason`, `details.reason`).', maxLength: 1000 })
  @Optional()
  @IsString()
  @MaxLength(1000)
  reason?: string;

  @ApiPropertyOptional({ description: 'The caller\'s own id of the change (a CRM ticket, a return); kept as the ledger row\'s `source_id`.', maxLength: 255 })
  @Optional()
  @IsString()
  @MaxLength(255)
  source_id?: string;
}

/** The answer (Voucherify's `LoyaltiesMembersBalanceUpdateResponseBody`): exactly these keys. */
export class LoyaltyCardBalanceDto {
  @ApiProperty({ description: 'The change: points added (positive) or removed (negative).', example: 100 })
  points: number;

  @ApiProperty({ description: 'Points ever added to the card, after the change (a removal or an expiry does not lower it).', example: 1100 })
  total: number;

  @ApiProperty({ description: 'The card\'s balance after the change.', example: 600, minimum: 0 })
  balance: number;

  @ApiProperty({ enum: ['loyalty_card'] })
  type: 'loyalty_card';

  @ApiProperty({ enum: ['balance'] })
  object: 'balance';

  @ApiProperty({ type: RelatedVoucherDto })
  related_object: RelatedVoucherDto;

  @ApiProperty({ enum: ['MANUAL'] })
  operation_type: 'MANUAL';
}

export class PointsBucketContentDto {
  @ApiProperty({ description: 'The points still in the bucket (0 once drained by removals).', example: 100 })
  total_points: number;
}

/** A loyalty points bucket (Voucherify's `LoyaltyPointsBucket`): the card's points of one last day (one ACTIVE bucket per card and day). */
export class PointsBucketDto {
  @ApiProperty({ example: EXAMPLE_IDS.pointsBucket })
  id: string;

  @ApiProperty({ example: EXAMPLE_IDS.card })
  voucher_id: string;

  @ApiProperty({ example: EXAMPLE_IDS.campaign })
  campaign_id: string;

  @ApiProperty({ type: PointsBucketContentDto })
  bucket: PointsBucketContentDto;

  @ApiProperty({ enum: ['ACTIVE'], description: 'Listed buckets are ACTIVE; expired ones are not listed.' })
  status: string;

  @ApiPropertyOptional({ format: 'date', example: '2027-01-31', description: 'The last day its points can be spent, in the project\'s time zone; absent when they never expire.' })
  expires_at?: string;

  @ApiProperty({ format: 'date-time', description: 'The first credit of its day: every later credit of the card that expires that day adds to this bucket.' })
  created_at: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'When it last changed after it was made (a later credit of its day, a removal draining it); absent until then.' })
  updated_at?: string;

  @ApiProperty({ enum: ['loyalty_points_bucket'] })
  object: 'loyalty_points_bucket';
}

export class PointsBucketListDto {
  @ApiProperty({ enum: ['list'] })
  object: 'list';

  @ApiProperty({ enum: ['data'] })
  data_ref: 'data';

  @ApiProperty({ type: [PointsBucketDto], description: 'The soonest-expiring first (never-expiring last), one per day.' })
  data: PointsBucketDto[];

  @ApiProperty({ description: 'ACTIVE buckets of the card, all pages.' })
  total: number;
}

export class ListPointsExpirationQueryDto extends LimitQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_BUCKET_PAGE, default: 1 })
  @Optional()
  @QueryInt()
  @IsInt()
  @Min(1)
  @Max(MAX_BUCKET_PAGE)
  page?: number;
}

export function toPointsBucketDto(row: BucketView): PointsBucketDto {
  const dto: PointsBucketDto = {
    id: row.id,
    voucher_id: row.voucherId,
    campaign_id: row.campaignId,
    bucket: { total_points: row.remaining },
    status: row.status,
    created_at: row.createdAt.toISOString(),
    object: 'loyalty_points_bucket',
  };
  if (row.expiresAt !== null) dto.expires_at = row.expiresAt;
  if (row.updatedAt !== null) dto.updated_at = row.updatedAt.toISOString();
  return dto;
}
