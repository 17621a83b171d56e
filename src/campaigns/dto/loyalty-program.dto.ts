import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Matches } from 'class-validator';
import type { Campaign } from '../campaign.entity.js';
import type { LoyaltyProgram } from '../loyalty-program.entity.js';
import { LimitQueryDto } from '../../common/pagination/limit-query.dto.js';
import { ListCursorDto } from '../../common/pagination/list-cursor.dto.js';
import { Optional } from '../../common/validation/decorators.js';
import { EXAMPLE_IDS, patternExample } from '../../common/openapi/examples.js';

export const PROGRAM_STATUSES = ['ACTIVE', 'INACTIVE', 'DELETED'] as const;
export type ProgramStatus = (typeof PROGRAM_STATUSES)[number];
export const PROGRAM_ID = /^lprg_[a-f0-9]+$/;
export const PROGRAMS_CURSOR_PREFIX = 'lcrsprg_';

export class LoyaltyProgramDto {
  @ApiProperty(patternExample(PROGRAM_ID, EXAMPLE_IDS.program))
  id: string;

  @ApiProperty({ description: 'The campaign\'s name.' })
  name: string;

  @ApiProperty({
    enum: PROGRAM_STATUSES,
    description: 'Follows the campaign: ACTIVE when it is switched on and inside start_date..expiration_date, INACTIVE otherwise, DELETED once it is deleted.',
  })
  status: ProgramStatus;

  @ApiProperty({ example: EXAMPLE_IDS.campaign, description: 'The loyalty campaign (`camp_…`) this program belongs to.' })
  campaign_id: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'The campaign\'s start_date.' })
  start_date: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'The campaign\'s expiration_date.' })
  end_date: string | null;

  @ApiProperty({ type: 'object', additionalProperties: true })
  metadata: Record<string, unknown>;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'The campaign\'s last update; null if never updated.' })
  updated_at: string | null;

  @ApiProperty({ enum: ['program'] })
  object: 'program';
}

export class LoyaltyProgramListDto {
  @ApiProperty({ type: [LoyaltyProgramDto] })
  data: LoyaltyProgramDto[];

  @ApiProperty({ type: ListCursorDto, nullable: true, description: 'null when there are no more programs.' })
  cursor: ListCursorDto | null;

  @ApiProperty({ enum: ['list'] })
  object: 'list';
}

/** GET /v2/loyalties/programs: keyset pages, newest first. Deleted programs are not listed. */
export class ListLoyaltyProgramsQueryDto extends LimitQueryDto {
  @ApiPropertyOptional({ pattern: `^${PROGRAMS_CURSOR_PREFIX}[a-f0-9]+$`, description: '`cursor.next` of the previous page.' })
  @Optional()
  @IsString()
  @Matches(new RegExp(`^${PROGRAMS_CURSOR_PREFIX}[a-f0-9]+$`), { message: `cursor must match ^${PROGRAMS_CURSOR_PREFIX}[a-f0-9]+$` })
  cursor?: string;
}

/** A program's status follows its campaign: deleted, or active while switched on and within its dates. */
export function programStatus(campaign: Campaign, now = new Date()): ProgramStatus {
  if (campaign.deletedAt) return 'DELETED';
  const started = !campaign.startDate || campaign.startDate <= now;
  const notExpired = !campaign.expirationDate || campaign.expirationDate >= now;
  return campaign.active && started && notExpired ? 'ACTIVE' : 'INACTIVE';
}

export function toProgramDto(program: LoyaltyProgram): LoyaltyProgramDto {
  const campaign = program.campaign as Campaign;
  return {
    id: program.id,
    name: campaign.name,
    status: programStatus(campaign),
    campaign_id: campaign.id,
    start_date: campaign.startDate?.toISOString() ?? null,
    end_date: campaign.expirationDate?.toISOString() ?? null,
    metadata: program.metadata,
    created_at: program.createdAt.toISOString(),
    updated_at: campaign.updatedAt?.toISOString() ?? null,
    object: 'program',
  };
}
