import { ApiHideProperty, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsDefined, IsIn, IsOptional, IsString, Matches, MaxLength, ValidateIf } from 'class-validator';
import { PROGRAM_ID } from '../../campaigns/dto/loyalty-program.dto.js';
import { LimitQueryDto } from '../../common/pagination/limit-query.dto.js';
import { CUSTOMER_ID } from '../../customers/dto/customer.dto.js';
import type { LoyaltyCard } from '../../cards/card.entity.js';
import type { NextActivation } from '../card-activations.js';
import { type Member, MEMBER_STATUSES, type MemberStatus } from '../member.entity.js';
import type { MemberRow } from '../member.repository.js';
import { EXAMPLE_IDS, EXAMPLE_MEMBERS_CURSOR, patternExample } from '../../common/openapi/examples.js';
import { IsMetadata, Nested, Optional } from '../../common/validation/decorators.js';

export const MEMBER_ID = /^lmbr_[a-f0-9]+$/;
export const MEMBERS_CURSOR_PREFIX = 'lcrsmbr_';
export const MEMBERS_CURSOR = new RegExp(`^${MEMBERS_CURSOR_PREFIX}[a-f0-9]+$`);

/** Path parameters of every /v2/loyalties/programs/{programId}/members route. */
export class ProgramParamsDto {
  @ApiProperty(patternExample(PROGRAM_ID, EXAMPLE_IDS.program))
  @Matches(PROGRAM_ID, { message: `programId must match ${PROGRAM_ID.source}` })
  programId: string;
}

export class MemberParamsDto extends ProgramParamsDto {
  @ApiProperty(patternExample(MEMBER_ID, EXAMPLE_IDS.member))
  @IsString()
  memberId: string;
}

export class CustomerIdentificationDto {
  @ApiProperty({ enum: ['customer_id', 'customer_source_id'], description: 'Which of the two fields identifies the customer.' })
  @IsIn(['customer_id', 'customer_source_id'])
  type: 'customer_id' | 'customer_source_id';

  @ApiPropertyOptional({ ...patternExample(CUSTOMER_ID, EXAMPLE_IDS.customer), description: 'Required with type customer_id: an existing customer.' })
  @ValidateIf((o: CustomerIdentificationDto) => o.type === 'customer_id' || o.customer_id !== undefined)
  @Matches(CUSTOMER_ID, { message: `$property must match ${CUSTOMER_ID.source}` })
  customer_id?: string;

  @ApiPropertyOptional({ maxLength: 255, description: 'Required with type customer_source_id; a customer with this source_id is created if there is none.' })
  @ValidateIf((o: CustomerIdentificationDto) => o.type === 'customer_source_id' || o.customer_source_id !== undefined)
  @IsString()
  @Matches(/\S/, { message: '$property must not be blank' })
  @MaxLength(255)
  customer_source_id?: string;
}

export class CreateMemberDto {
  @ApiProperty({ type: CustomerIdentificationDto })
  @Nested(() => CustomerIdentificationDto, { required: true })
  customer_identification: CustomerIdentificationDto;

  @ApiPropertyOptional({ enum: ['ACTIVE', 'INACTIVE'], default: 'ACTIVE', nullable: true })
  @IsOptional()
  @IsIn(['ACTIVE', 'INACTIVE'])
  status?: 'ACTIVE' | 'INACTIVE' | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, nullable: true, default: {} })
  @IsOptional()
  @IsMetadata()
  metadata?: Record<string, unknown> | null;
}

export class UpdateMemberDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'Merged into the member\'s metadata; a key sent as null is removed; null clears all. Status changes through activate/deactivate.',
  })
  @ValidateIf((o: UpdateMemberDto) => o.metadata !== null)
  @IsDefined({ message: 'metadata is required (an object, or null to clear it)' })
  @IsMetadata()
  metadata: Record<string, unknown> | null;
}

export class MemberDto {
  @ApiProperty(patternExample(MEMBER_ID, EXAMPLE_IDS.member))
  id: string;

  @ApiProperty(patternExample(CUSTOMER_ID, EXAMPLE_IDS.customer))
  customer_id: string;

  @ApiProperty(patternExample(PROGRAM_ID, EXAMPLE_IDS.program))
  program_id: string;

  @ApiProperty({ enum: MEMBER_STATUSES, description: 'INACTIVE members are listed but cannot earn or spend; DELETED is only ever seen in the answer to DELETE.' })
  status: MemberStatus;

  @ApiProperty({ type: 'object', additionalProperties: true })
  metadata: Record<string, unknown>;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'null if never updated.' })
  updated_at: string | null;

  @ApiProperty({ enum: ['member'] })
  object: 'member';
}

export class CardBalanceDto {
  @ApiProperty({ description: 'Points the member can spend now.' })
  points: number;

  @ApiProperty({ description: 'Points earned but not yet activated.' })
  pending_points: number;
}

export class CardLifetimePointsDto {
  @ApiProperty({ description: 'Points ever credited to the card: earned + added.' })
  total: number;

  @ApiProperty({ description: 'Points earned on orders (at once, or pending and then activated).' })
  earned: number;

  @ApiProperty({ description: 'Points added by hand, with the campaign\'s initial points.' })
  added: number;

  @ApiProperty({ description: 'Always 0: points are not purchased in this service.' })
  purchased: number;

  @ApiProperty({ description: 'Always 0.' })
  purchased_reversed: number;

  @ApiProperty({ description: 'Points removed by hand.' })
  subtracted: number;

  @ApiProperty({ description: 'Points that expired.' })
  expired: number;

  @ApiProperty({ description: 'Always 0: points are not spent on rewards in this service.' })
  spent: number;

  @ApiProperty({ description: 'Always 0.' })
  refunded: number;

  @ApiProperty({ description: 'Always 0.' })
  returned: number;

  @ApiProperty({ description: 'Always 0.' })
  locked: number;

  @ApiProperty({ description: 'Always 0.' })
  unlocked: number;
}

export class CardLifetimePendingPointsDto {
  @ApiProperty({ description: 'Pending points ever held: activated + canceled + pending now.' })
  total: number;

  @ApiProperty({ description: 'Pending points that were activated.' })
  activated: number;

  @ApiProperty({ description: 'Pending points that were canceled (by hand or with their order).' })
  canceled: number;
}

export class CardLifetimeBucketDto {
  @ApiProperty({ type: CardLifetimePointsDto })
  points: CardLifetimePointsDto;

  @ApiProperty({ type: CardLifetimePendingPointsDto })
  pending_points: CardLifetimePendingPointsDto;
}

export class CardNextExpirationDto {
  @ApiProperty({ description: 'Points that expire at the end of `date`.' })
  points: number;

  @ApiProperty({ format: 'date', example: '2026-12-31', description: 'The last day of those points (the project\'s time zone).' })
  date: string;
}

export class CardNextActivationDto {
  @ApiProperty({ description: 'Pending points that activate on `date`.' })
  points: number;

  @ApiProperty({ enum: ['PERIOD_BASED'], description: 'Always PERIOD_BASED: pending points activate a number of days after their order.' })
  type: 'PERIOD_BASED';

  @ApiProperty({ format: 'date', example: '2026-12-01', description: 'The UTC day of the soonest activation.' })
  date: string;
}

export class CardDto {
  @ApiProperty({
    example: `lcrd_${Buffer.from(EXAMPLE_IDS.card.slice(2), 'latin1').toString('hex')}`,
    pattern: '^lcrd_[a-f0-9]+$',
    description: 'The card (`lcrd_…`, as Voucherify\'s v2 cards). In this service a v2 card and a v1 loyalty card are one object: after `lcrd_` come the characters after `v_` of the card\'s voucher id, written as hex (Voucherify\'s v2 ids are hex).',
  })
  id: string;

  @ApiProperty({
    example: `lcdef_${Buffer.from(EXAMPLE_IDS.campaign.slice(5), 'latin1').toString('hex')}`,
    pattern: '^lcdef_[a-f0-9]+$',
    description: 'The card definition (`lcdef_…`). A program here has one card definition, its loyalty campaign: after `lcdef_` come the characters after `camp_` of `campaign_id`, written as hex.',
  })
  card_definition_id: string;

  @ApiProperty({ example: EXAMPLE_IDS.cardCode, description: 'The card code (the v1 `memberId`).' })
  code: string;

  @ApiProperty({ example: EXAMPLE_IDS.campaign, description: 'The loyalty campaign (`camp_…`) the card belongs to.' })
  campaign_id: string;

  @ApiProperty({ enum: ['INDIVIDUAL'] })
  card_type: 'INDIVIDUAL';

  @ApiProperty({ type: CardLifetimeBucketDto })
  lifetime_bucket: CardLifetimeBucketDto;

  @ApiProperty({ type: CardBalanceDto })
  balance: CardBalanceDto;

  @ApiProperty({ type: CardNextExpirationDto, nullable: true, description: 'null when none of the card\'s points expire.' })
  next_expiration: CardNextExpirationDto | null;

  @ApiProperty({ type: CardNextActivationDto, nullable: true, description: 'null when the card has no pending points.' })
  next_activation: CardNextActivationDto | null;

  @ApiProperty({ description: 'Points ever added to the card (as lifetime_bucket.points.total).' })
  points_total: number;

  @ApiProperty({ enum: ['card'] })
  object: 'card';
}

export class MemberCardDto {
  @ApiProperty({ enum: ['OWNER'] })
  member_role: 'OWNER';

  @ApiProperty({ format: 'date-time', description: 'When the card was given to the member.' })
  created_at: string;

  @ApiProperty({ type: CardDto })
  card: CardDto;

  @ApiProperty({ enum: ['member_card'] })
  object: 'member_card';
}

export class MemberWithCardsDto extends MemberDto {
  @ApiProperty({ type: [MemberCardDto] })
  cards: MemberCardDto[];
}

export class MembersCursorDto {
  @ApiProperty({ ...patternExample(MEMBERS_CURSOR, EXAMPLE_MEMBERS_CURSOR), description: 'Pass as `cursor`, with the same `filters` and `order`, to get the next page.' })
  next: string;

  @ApiProperty({ format: 'date-time', description: 'The cursor is refused after this moment.' })
  expires_at: string;
}

export class MemberListDto {
  @ApiProperty({ type: [MemberDto], description: 'Members without their cards.' })
  data: MemberDto[];

  @ApiProperty({ type: MembersCursorDto, nullable: true, description: 'null on the last page.' })
  cursor: MembersCursorDto | null;

  @ApiProperty({ enum: ['list'] })
  object: 'list';
}

/**
 * GET /v2/loyalties/programs/{programId}/members. `order` and `filters` are parsed by member-list-query.ts
 * (they are too rich for decorators); the OpenAPI description of both is on the controller.
 */
export class ListMembersQueryDto extends LimitQueryDto {
  @ApiHideProperty()
  @Allow()
  order?: unknown;

  @ApiHideProperty()
  @Allow()
  filters?: unknown;

  @ApiPropertyOptional({ pattern: MEMBERS_CURSOR.source, description: '`cursor.next` of the previous page; valid with the same filters and order until `expires_at`.' })
  @Optional()
  @IsString()
  cursor?: string;
}

export function toMemberDto(member: Member | MemberRow): MemberDto {
  const row = 'programId' in member ? memberRow(member) : member;
  return {
    id: row.id,
    customer_id: row.customer_id,
    program_id: row.program_id,
    status: row.status,
    metadata: row.metadata,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at?.toISOString() ?? null,
    object: 'member',
  };
}

function memberRow(member: Member): MemberRow {
  return {
    id: member.id,
    program_id: member.programId,
    customer_id: member.customerId,
    status: member.status,
    metadata: member.metadata,
    created_at: member.createdAt,
    updated_at: member.updatedAt,
  };
}

export function toMemberWithCards(member: Member, cards: LoyaltyCard[], activations: Map<string, NextActivation>): MemberWithCardsDto {
  return { ...toMemberDto(member), cards: cards.map((card) => toMemberCard(card, activations.get(card.id) ?? null)) };
}

/**
 * `v_…` → `lcrd_…`, `camp_…` → `lcdef_…`: the same objects under Voucherify's v2 prefixes. Voucherify's v2 ids
 * are lowercase hex after the prefix (its schema's pattern), ours base62: the suffix's characters are written
 * as hex (reversible, so a v2 id always names one card).
 */
const v2Id = (prefix: string, id: string): string => prefix + Buffer.from(id.slice(id.indexOf('_') + 1), 'latin1').toString('hex');

function toMemberCard(card: LoyaltyCard, activation: NextActivation | null): MemberCardDto {
  const added = card.initialPoints + card.addedPoints;
  return {
    member_role: 'OWNER',
    created_at: (card.publishedAt ?? card.createdAt).toISOString(),
    card: {
      id: v2Id('lcrd_', card.id),
      card_definition_id: v2Id('lcdef_', card.campaignId),
      code: card.code,
      campaign_id: card.campaignId,
      card_type: 'INDIVIDUAL',
      lifetime_bucket: {
        points: {
          total: card.points,
          earned: card.points - added,
          added,
          purchased: 0,
          purchased_reversed: 0,
          subtracted: card.subtractedPoints,
          expired: card.expiredPoints,
          spent: 0,
          refunded: 0,
          returned: 0,
          locked: 0,
          unlocked: 0,
        },
        pending_points: {
          total: card.pendingActivatedPoints + card.pendingCanceledPoints + card.pendingPoints,
          activated: card.pendingActivatedPoints,
          canceled: card.pendingCanceledPoints,
        },
      },
      balance: { points: card.balance, pending_points: card.pendingPoints },
      next_expiration: card.nextExpirationDate ? { points: card.nextExpirationPoints, date: card.nextExpirationDate } : null,
      next_activation: activation ? { points: activation.points, type: 'PERIOD_BASED', date: activation.date } : null,
      points_total: card.points,
      object: 'card',
    },
    object: 'member_card',
  };
}
