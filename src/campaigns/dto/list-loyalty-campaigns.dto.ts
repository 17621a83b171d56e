import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsInt, Max, Min } from 'class-validator';
import { LoyaltyCampaignDto } from './loyalty-campaign.dto.js';
import { LimitQueryDto } from '../../common/pagination/limit-query.dto.js';
import { Optional, QueryInt } from '../../common/validation/decorators.js';

export const CAMPAIGN_EXPANDS = ['categories', 'access_settings_assignments'] as const;
export const CAMPAIGN_ORDERS = ['created_at', '-created_at', 'updated_at', '-updated_at'] as const;
export type CampaignOrder = (typeof CAMPAIGN_ORDERS)[number];
export const MAX_PAGE = 1000;

/** GET /v1/loyalties: Voucherify's page/limit listing. */
export class ListLoyaltyCampaignsQueryDto extends LimitQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_PAGE, default: 1 })
  @Optional()
  @QueryInt()
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE)
  page?: number;

  @ApiPropertyOptional({ enum: CAMPAIGN_ORDERS, default: '-created_at', description: 'Sort; `-` means descending. Ties are broken by id.' })
  @Optional()
  @IsIn(CAMPAIGN_ORDERS)
  order?: CampaignOrder;

  @ApiPropertyOptional({
    enum: CAMPAIGN_EXPANDS,
    isArray: true,
    description: 'Extra data per campaign; `access_settings_assignments` needs the Areas and Stores feature. Comma-separated or repeated.',
  })
  @Optional()
  @Transform(({ value }: { value: unknown }) => (Array.isArray(value) ? value : String(value).split(',')))
  @IsArray()
  @ArrayMaxSize(2)
  @IsIn(CAMPAIGN_EXPANDS, { each: true })
  expand?: (typeof CAMPAIGN_EXPANDS)[number][];
}

export class LoyaltyCampaignListDto {
  @ApiProperty({ enum: ['list'] })
  object: 'list';

  @ApiProperty({ enum: ['campaigns'] })
  data_ref: 'campaigns';

  @ApiProperty({ type: [LoyaltyCampaignDto] })
  campaigns: LoyaltyCampaignDto[];

  @ApiProperty({ description: 'Number of the project\'s loyalty campaigns (all pages).' })
  total: number;
}
