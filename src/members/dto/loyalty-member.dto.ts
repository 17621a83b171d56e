import { ApiExtraModels, ApiHideProperty, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { present } from '../../common/present.js';
import { plainToInstance, Transform } from 'class-transformer';
import { IsDefined, IsIn, ValidateIf, IsInt, IsString, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { ValidityHoursDto, ValidityTimeframeDto } from '../../campaigns/dto/campaign-settings.dto.js';
import type { Campaign } from '../../campaigns/campaign.entity.js';
import { CategoryDto, toCategoryDto } from '../../campaigns/dto/loyalty-campaign.dto.js';
import { LimitQueryDto } from '../../common/pagination/limit-query.dto.js';
import { UpsertCustomerDto } from '../../customers/dto/customer.dto.js';
import { EXAMPLE_IDS } from '../../common/openapi/examples.js';
import { IsDateTime, IsMetadata, Nested, Optional, QueryInt } from '../../common/validation/decorators.js';
import type { LoyaltyCard } from '../../cards/card.entity.js';
import type { Member } from '../member.entity.js';

/**
 * POST /v1/loyalties/{campaignId}/members (the SDK's `loyalties.createMember`). `customer` may also be a
 * plain string, an id or a source id, as Voucherify's own examples send it.
 */
@ApiExtraModels(UpsertCustomerDto)
export class CreateLoyaltyMemberDto {
  @ApiProperty({
    oneOf: [{ $ref: getSchemaPath(UpsertCustomerDto) }, { type: 'string', description: 'A customer id or source id.' }],
    description: 'The customer: `{id}` of an existing one, `{source_id, …}` (created or updated), or a plain id / source id.',
  })
  @ValidateIf((o: CreateLoyaltyMemberDto) => typeof o.customer !== 'string')
  @IsDefined()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'object' && value !== null && !Array.isArray(value) ? plainToInstance(UpsertCustomerDto, value) : value))
  @ValidateNested()
  customer: UpsertCustomerDto | string;

  @ApiPropertyOptional({ description: 'Code of a free card of this campaign to give; by default the next free card (or a new one for AUTO_UPDATE).' })
  @Optional()
  @IsString()
  voucher?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Stored as the member\'s metadata.' })
  @Optional()
  @IsMetadata()
  metadata?: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'Distribution channel; accepted for compatibility and not stored.' })
  @Optional()
  @IsString()
  @MaxLength(255)
  channel?: string;

  @ApiPropertyOptional({ description: 'Your publication id; accepted for compatibility and not stored.' })
  @Optional()
  @IsString()
  @MaxLength(255)
  source_id?: string;
}

export const LOYALTY_MEMBER_ORDERS = ['created_at', '-created_at', 'updated_at', '-updated_at', 'code', '-code'] as const;
export type LoyaltyMemberOrder = (typeof LOYALTY_MEMBER_ORDERS)[number];

export class DateRangeQueryDto {
  @ApiPropertyOptional({ format: 'date-time' })
  @Optional()
  @IsDateTime()
  before?: string;

  @ApiPropertyOptional({ format: 'date-time' })
  @Optional()
  @IsDateTime()
  after?: string;
}

/** GET /v1/loyalties/{campaignId}/members: Voucherify's page/limit listing of the campaign's published cards (date ranges are documented on the controller, as deep objects). */
export class ListLoyaltyMembersQueryDto extends LimitQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 1 })
  @Optional()
  @QueryInt()
  @IsInt()
  @Min(1)
  @Max(100)
  page?: number;

  @ApiPropertyOptional({ enum: LOYALTY_MEMBER_ORDERS, default: '-created_at', description: 'By the card\'s creation, last update or code; `-` means descending.' })
  @Optional()
  @IsIn(LOYALTY_MEMBER_ORDERS)
  order?: LoyaltyMemberOrder;

  @ApiPropertyOptional({ description: 'Only the card of this customer (id or source id).' })
  @Optional()
  @IsString()
  customer?: string;

  @ApiPropertyOptional({ description: 'Only the card with this code.' })
  @Optional()
  @IsString()
  code?: string;

  @ApiHideProperty()
  @Nested(() => DateRangeQueryDto, { optional: true })
  created_at?: DateRangeQueryDto;

  @ApiHideProperty()
  @Nested(() => DateRangeQueryDto, { optional: true })
  updated_at?: DateRangeQueryDto;
}

export class LoyaltyMemberCardDto {
  @ApiProperty({ description: 'Points ever added to the card.' })
  points: number;

  @ApiProperty({ description: 'Points that can be spent now.' })
  balance: number;

  @ApiProperty({ description: 'Points earned but not yet activated.' })
  pending_points: number;

  @ApiProperty({ description: 'Points that expired (their buckets\' last day passed): `balance` = `points` − `expired_points` − `subtracted_points`.' })
  expired_points: number;

  @ApiProperty({ description: 'Points removed by hand (POST …/balance with negative points).' })
  subtracted_points: number;

  @ApiPropertyOptional({ format: 'date', example: '2027-01-31', description: 'The soonest last day of the card\'s points that expire (docs/points-expiry.md); absent when none do.' })
  next_expiration_date?: string;

  @ApiProperty({ description: 'The points that expire after `next_expiration_date` (0 when none do).' })
  next_expiration_points: number;
}

export class LoyaltyMemberRedemptionDto {
  @ApiPropertyOptional({ description: 'Absent: unlimited (Voucherify\'s examples send null; its schema types it as an integer).' })
  quantity?: number;

  @ApiProperty({ description: 'Redemptions of rewards with the card, less those rolled back.' })
  redeemed_quantity: number;

  @ApiProperty({ description: 'Points spent on rewards, less those a rollback gave back.' })
  redeemed_points: number;

  @ApiProperty({ enum: ['list'] })
  object: 'list';
}

export class LoyaltyMemberPublishDto {
  @ApiProperty({ enum: ['list'] })
  object: 'list';

  @ApiProperty({ description: 'Times the card was published (1 once it has a holder).' })
  count: number;
}

/** A v1 loyalty "member": the customer's loyalty card as a voucher object. */
export class LoyaltyMemberDto {
  @ApiProperty({ example: EXAMPLE_IDS.card })
  id: string;

  @ApiProperty({ example: EXAMPLE_IDS.cardCode, description: 'The card code (the v1 `memberId`).' })
  code: string;

  @ApiProperty({ example: 'Summer Loyalty', description: 'The campaign\'s name.' })
  campaign: string;

  @ApiProperty({ example: EXAMPLE_IDS.campaign })
  campaign_id: string;

  @ApiPropertyOptional({ example: 'Loyalty', description: 'The campaign\'s category; absent without one.' })
  category?: string;

  @ApiPropertyOptional({ example: EXAMPLE_IDS.category, description: 'Absent without a category.' })
  category_id?: string;

  @ApiProperty({ type: [CategoryDto] })
  categories: CategoryDto[];

  @ApiProperty({ enum: ['LOYALTY_CARD'] })
  type: 'LOYALTY_CARD';

  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true, description: 'Always null for loyalty cards.' })
  discount: null;

  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true, description: 'Always null for loyalty cards.' })
  gift: null;

  @ApiProperty({ type: LoyaltyMemberCardDto })
  loyalty_card: LoyaltyMemberCardDto;

  @ApiPropertyOptional({ format: 'date-time', description: 'The campaign\'s start; absent without one.' })
  start_date?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'The campaign\'s end; absent without one.' })
  expiration_date?: string;

  @ApiPropertyOptional({ type: ValidityTimeframeDto, description: 'Absent without one.' })
  validity_timeframe?: ValidityTimeframeDto;

  @ApiPropertyOptional({ type: [Number], description: 'Absent without one.' })
  validity_day_of_week?: number[];

  @ApiPropertyOptional({ type: ValidityHoursDto })
  validity_hours?: ValidityHoursDto;

  @ApiProperty({ description: 'False while the member is INACTIVE.' })
  active: boolean;


  @ApiProperty({ type: 'object', additionalProperties: true })
  metadata: Record<string, unknown>;

  @ApiProperty({ enum: [false] })
  is_referral_code: false;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Absent if the card never changed.' })
  updated_at?: string;

  @ApiProperty({ example: EXAMPLE_IDS.customer, description: 'The customer holding the card (`cust_…`).' })
  holder_id: string;

  @ApiProperty({ type: LoyaltyMemberRedemptionDto })
  redemption: LoyaltyMemberRedemptionDto;

  @ApiProperty({ type: LoyaltyMemberPublishDto })
  publish: LoyaltyMemberPublishDto;

  @ApiProperty({ enum: ['voucher'] })
  object: 'voucher';
}

export class LoyaltyMemberListDto {
  @ApiProperty({ enum: ['list'] })
  object: 'list';

  @ApiProperty({ enum: ['vouchers'] })
  data_ref: 'vouchers';

  @ApiProperty({ type: [LoyaltyMemberDto] })
  vouchers: LoyaltyMemberDto[];

  @ApiProperty({ description: 'Members (published cards) matching the query.' })
  total: number;
}

/** The v1 voucher object of a published card (loaded with its member, campaign and category). */
/** A published card with its member, and its campaign with the category (what the v1 voucher object shows). */
export type PublishedCard = LoyaltyCard & { member: Member; campaign: Campaign };

export function toLoyaltyMember(card: PublishedCard): LoyaltyMemberDto {
  const { campaign } = card;
  const category = campaign.category ?? null;
  const dto: LoyaltyMemberDto = {
    id: card.id,
    code: card.code,
    campaign: campaign.name,
    campaign_id: campaign.id,
    ...present('category', category?.name),
    ...present('category_id', category?.id),
    categories: category ? [toCategoryDto(category)] : [],
    type: 'LOYALTY_CARD',
    discount: null,
    gift: null,
    loyalty_card: {
      points: card.points,
      balance: card.balance,
      pending_points: card.pendingPoints,
      expired_points: card.expiredPoints,
      subtracted_points: card.subtractedPoints,
      ...present('next_expiration_date', card.nextExpirationDate),
      next_expiration_points: card.nextExpirationPoints,
    },
    ...present('start_date', campaign.startDate?.toISOString()),
    ...present('expiration_date', campaign.expirationDate?.toISOString()),
    ...present('validity_timeframe', campaign.validityTimeframe as LoyaltyMemberDto['validity_timeframe']),
    ...present('validity_day_of_week', campaign.validityDayOfWeek),
    active: card.member?.status === 'ACTIVE',
    metadata: {},
    is_referral_code: false,
    created_at: card.createdAt.toISOString(),
    ...present('updated_at', card.updatedAt?.toISOString()),
    holder_id: card.holderId as string,
    redemption: { redeemed_quantity: card.redeemedQuantity, redeemed_points: card.redeemedPoints, object: 'list' },
    publish: { object: 'list', count: 1 },
    object: 'voucher',
  };
  if (campaign.validityHours) dto.validity_hours = campaign.validityHours;
  return dto;
}
