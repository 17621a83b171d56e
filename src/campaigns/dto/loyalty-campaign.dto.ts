import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { type AccessAssignment, CAMPAIGN_TYPES, type Campaign, type CampaignType, GENERATION_STATUSES, type GenerationStatus } from '../campaign.entity.js';
import type { Category } from '../category.entity.js';
import { LoyaltyCardDto, LoyaltyTiersExpirationDto, ValidityHoursDto, ValidityTimeframeDto } from './campaign-settings.dto.js';
import { EXAMPLE_IDS } from '../../common/openapi/examples.js';

export class CategoryDto {
  @ApiProperty({ example: EXAMPLE_IDS.category })
  id: string;

  @ApiProperty({ example: 'Loyalty' })
  name: string;

  @ApiProperty({ description: 'Position in the category hierarchy.', example: 0 })
  hierarchy: number;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ enum: ['category'] })
  object: 'category';
}

export class CodeConfigResponseDto {
  @ApiProperty({ description: 'Number of random characters (the pattern\'s `#` count).', example: 8 })
  length: number;

  @ApiProperty({ example: '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ' })
  charset: string;

  @ApiProperty({ example: '########' })
  pattern: string;

  @ApiPropertyOptional()
  prefix?: string;

  @ApiPropertyOptional()
  postfix?: string;
}

export class RedemptionResponseDto {
  @ApiProperty({ type: Number, nullable: true, description: 'null = unlimited.' })
  quantity: number | null;
}

export class LoyaltyCampaignVoucherDto {
  @ApiProperty({ enum: ['LOYALTY_CARD'] })
  type: 'LOYALTY_CARD';

  @ApiProperty({ type: LoyaltyCardDto })
  loyalty_card: LoyaltyCardDto;

  @ApiProperty({ type: RedemptionResponseDto })
  redemption: RedemptionResponseDto;

  @ApiProperty({ type: CodeConfigResponseDto })
  code_config: CodeConfigResponseDto;

  @ApiProperty({ enum: [false], description: 'Always false for loyalty cards.' })
  is_referral_code: false;
}

export class ValidationRulesAssignmentsListDto {
  @ApiProperty({ enum: ['list'] })
  object: 'list';

  @ApiProperty({ enum: ['data'] })
  data_ref: 'data';

  @ApiProperty({ type: 'array', items: { type: 'object' }, description: 'Always empty: validation rules are not supported yet.' })
  data: object[];

  @ApiProperty({ example: 0 })
  total: number;
}

export class AccessSettingsAssignmentDto {
  @ApiProperty({ example: EXAMPLE_IDS.accessAssignment })
  id: string;

  @ApiProperty({ type: String, nullable: true })
  area_id: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  area_store_id: string | null;

  @ApiProperty({ description: 'Every store of the area is assigned.' })
  all_stores: boolean;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ enum: ['area_store_campaign_assignment'] })
  object: 'area_store_campaign_assignment';
}

export class AccessSettingsAssignmentsListDto {
  @ApiProperty({ enum: ['list'] })
  object: 'list';

  @ApiProperty({ enum: ['data'] })
  data_ref: 'data';

  @ApiProperty({ type: [AccessSettingsAssignmentDto] })
  data: AccessSettingsAssignmentDto[];

  @ApiProperty()
  total: number;
}

/** The campaign object (Voucherify `LoyaltyCampaign`), plus `program_id`. */
export class LoyaltyCampaignDto {
  @ApiProperty({ description: '`camp_` + 24 base62 characters.', example: EXAMPLE_IDS.campaign })
  id: string;

  @ApiProperty({ example: 'Summer Loyalty' })
  name: string;

  @ApiPropertyOptional()
  description?: string;

  @ApiProperty({ enum: ['LOYALTY_PROGRAM'] })
  campaign_type: 'LOYALTY_PROGRAM';

  @ApiProperty({ enum: CAMPAIGN_TYPES })
  type: CampaignType;

  @ApiPropertyOptional({ type: LoyaltyCampaignVoucherDto })
  voucher?: LoyaltyCampaignVoucherDto;

  @ApiProperty()
  auto_join: boolean;

  @ApiProperty({ enum: [true], description: 'Always true for loyalty campaigns.' })
  join_once: true;

  @ApiProperty()
  use_voucher_metadata_schema: boolean;

  @ApiPropertyOptional({ type: ValidityTimeframeDto })
  validity_timeframe?: ValidityTimeframeDto;

  @ApiPropertyOptional({ type: [Number] })
  validity_day_of_week?: number[];

  @ApiPropertyOptional({ type: ValidityHoursDto })
  validity_hours?: ValidityHoursDto;

  @ApiPropertyOptional({ example: 'P24D' })
  activity_duration_after_publishing?: string;

  @ApiPropertyOptional({ description: 'Cards made so far; reaches the requested count when generation is DONE.' })
  vouchers_count?: number;

  @ApiPropertyOptional({ format: 'date-time' })
  start_date?: string;

  @ApiPropertyOptional({ format: 'date-time' })
  expiration_date?: string;

  @ApiPropertyOptional({ description: 'The campaign switch (the campaign is live when true and inside start_date..expiration_date).' })
  active?: boolean;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  metadata?: Record<string, unknown>;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Absent until the first update.' })
  updated_at?: string;

  @ApiPropertyOptional({ description: 'Category name.' })
  category?: string;

  @ApiProperty({ enum: GENERATION_STATUSES, description: 'IN_PROGRESS while cards are generated, then DONE or FAILED.' })
  creation_status: GenerationStatus;

  @ApiProperty({ enum: GENERATION_STATUSES })
  vouchers_generation_status: GenerationStatus;

  @ApiPropertyOptional({ description: 'Only for restricted Areas and Stores users; application keys are unrestricted, so never sent.' })
  readonly?: boolean;

  @ApiProperty({ description: 'A protected campaign cannot be deleted.' })
  protected: boolean;

  @ApiProperty({ example: EXAMPLE_IDS.category, type: String, nullable: true })
  category_id: string | null;

  @ApiProperty({ type: [CategoryDto] })
  categories: CategoryDto[];

  @ApiProperty({ enum: ['campaign'] })
  object: 'campaign';

  @ApiPropertyOptional({ type: LoyaltyTiersExpirationDto })
  loyalty_tiers_expiration?: LoyaltyTiersExpirationDto;

  @ApiPropertyOptional({ type: ValidationRulesAssignmentsListDto })
  validation_rules_assignments?: ValidationRulesAssignmentsListDto;

  @ApiPropertyOptional({
    type: AccessSettingsAssignmentsListDto,
    description: 'Only when the project has the Areas and Stores feature on (in the list: only with expand=access_settings_assignments).',
  })
  access_settings_assignments?: AccessSettingsAssignmentsListDto;

  @ApiProperty({ description: 'The loyalty program (`lprg_…`) of this campaign.', example: EXAMPLE_IDS.program })
  program_id: string;
}

export interface CampaignView {
  campaign: Campaign;
  category: Category | null;
  programId: string;
  /** Whether to include access_settings_assignments. */
  withAccessSettings: boolean;
}

export function toCategoryDto(category: Category): CategoryDto {
  return { id: category.id, name: category.name, hierarchy: category.hierarchy, created_at: category.createdAt.toISOString(), object: 'category' };
}

function toAssignmentDto(assignment: AccessAssignment): AccessSettingsAssignmentDto {
  return { ...assignment, object: 'area_store_campaign_assignment' };
}

/** Required fields always; optional ones only when set, as Voucherify answers. */
export function toLoyaltyCampaignDto({ campaign: c, category, programId, withAccessSettings }: CampaignView): LoyaltyCampaignDto {
  const dto: Partial<LoyaltyCampaignDto> = { id: c.id, name: c.name };
  if (c.description !== null) dto.description = c.description;
  Object.assign(dto, { campaign_type: 'LOYALTY_PROGRAM', type: c.type });
  dto.voucher = { ...c.voucher, is_referral_code: false } as LoyaltyCampaignVoucherDto;
  Object.assign(dto, { auto_join: c.autoJoin, join_once: true, use_voucher_metadata_schema: c.useVoucherMetadataSchema });
  if (c.validityTimeframe) dto.validity_timeframe = c.validityTimeframe as ValidityTimeframeDto;
  if (c.validityDayOfWeek) dto.validity_day_of_week = c.validityDayOfWeek;
  if (c.validityHours) dto.validity_hours = c.validityHours;
  if (c.activityDurationAfterPublishing) dto.activity_duration_after_publishing = c.activityDurationAfterPublishing;
  dto.vouchers_count = c.vouchersCount;
  if (c.startDate) dto.start_date = c.startDate.toISOString();
  if (c.expirationDate) dto.expiration_date = c.expirationDate.toISOString();
  dto.active = c.active;
  dto.metadata = c.metadata;
  dto.created_at = c.createdAt.toISOString();
  if (c.updatedAt) dto.updated_at = c.updatedAt.toISOString();
  if (category) dto.category = category.name;
  Object.assign(dto, {
    creation_status: c.creationStatus,
    vouchers_generation_status: c.vouchersGenerationStatus,
    protected: c.protected,
    category_id: category?.id ?? null,
    categories: category ? [toCategoryDto(category)] : [],
    object: 'campaign',
  });
  if (c.loyaltyTiersExpiration) dto.loyalty_tiers_expiration = c.loyaltyTiersExpiration as LoyaltyTiersExpirationDto;
  dto.validation_rules_assignments = { object: 'list', data_ref: 'data', data: [], total: 0 };
  if (withAccessSettings) {
    const data = c.accessAssignments.map(toAssignmentDto);
    dto.access_settings_assignments = { object: 'list', data_ref: 'data', data, total: data.length };
  }
  dto.program_id = programId;
  return dto as LoyaltyCampaignDto;
}
