import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsDefined, IsInt, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import { EXAMPLE_IDS, patternExample } from '../../common/openapi/examples.js';
import { Nested, Optional } from '../../common/validation/decorators.js';
import type { StoredAssignment } from '../reward-assignment.repository.js';
import { REWARD_ID, RewardDto } from './reward.dto.js';
import { ListPageQueryDto, MAX_REWARD_NUMBER } from './reward-request.dto.js';

export const REWARD_ASSIGNMENT_ID = /^rewa_[a-zA-Z0-9]+$/;

export class AssignmentLoyaltyDto {
  @ApiPropertyOptional({
    minimum: 1,
    maximum: MAX_REWARD_NUMBER,
    description: 'The price in points. Required for CAMPAIGN and MATERIAL rewards (400 `missing_param` without it); a COIN reward has none (its price is what the member spends).',
    example: 100,
  })
  @Optional()
  @IsInt()
  @Min(1)
  @Max(MAX_REWARD_NUMBER)
  points?: number;
}

export class AssignmentParamsDto {
  @ApiPropertyOptional({ type: AssignmentLoyaltyDto, description: 'Required for CAMPAIGN and MATERIAL rewards (400 `missing_param`); left out for COIN.' })
  @Nested(() => AssignmentLoyaltyDto, { optional: true, object: true })
  loyalty?: AssignmentLoyaltyDto;
}

/** One item of POST /v1/loyalties/{campaignId}/rewards (an array, as Voucherify takes it). */
export class CreateCampaignAssignmentDto {
  @ApiProperty({ description: 'The reward to offer in the campaign (`rew_…`).', ...patternExample(REWARD_ID, EXAMPLE_IDS.reward) })
  @IsDefined({ message: 'reward is required' })
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  reward: string;

  @ApiPropertyOptional({ type: AssignmentParamsDto, description: 'The price: `{"loyalty": {"points": 100}}`; left out for a COIN reward.' })
  @Nested(() => AssignmentParamsDto, { optional: true, object: true })
  parameters?: AssignmentParamsDto;
}

/** POST /v1/rewards/{rewardId}/assignments: one assignment. */
export class CreateRewardAssignmentDto {
  @ApiPropertyOptional({
    description: 'The loyalty campaign to offer the reward in (`camp_…` or its name). Missing → 404 `not_found` (`Cannot find campaign with id null`), as Voucherify answers.',
    example: EXAMPLE_IDS.campaign,
  })
  @Optional()
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  campaign?: string;

  @ApiPropertyOptional({ type: AssignmentParamsDto, description: 'The price: `{"loyalty": {"points": 100}}`; left out for a COIN reward.' })
  @Nested(() => AssignmentParamsDto, { optional: true, object: true })
  parameters?: AssignmentParamsDto;
}

/** PUT of an assignment: a new price. */
export class UpdateRewardAssignmentDto {
  @ApiPropertyOptional({ type: AssignmentParamsDto, description: 'The new price; a COIN reward\'s assignment has none to change.' })
  @Nested(() => AssignmentParamsDto, { optional: true, object: true })
  parameters?: AssignmentParamsDto;
}

export class AssignmentLoyaltyAnswerDto {
  @ApiProperty({ description: 'The price in points.', example: 100 })
  points: number;
}

export class AssignmentParamsAnswerDto {
  @ApiProperty({ type: AssignmentLoyaltyAnswerDto, description: 'The loyalty price.' })
  loyalty: AssignmentLoyaltyAnswerDto;
}

export class RewardAssignmentDto {
  @ApiProperty({ description: 'The assignment (`rewa_` + 24 base62).', ...patternExample(REWARD_ASSIGNMENT_ID, EXAMPLE_IDS.rewardAssignment) })
  id: string;

  @ApiProperty({ description: 'The reward (`rew_…`).', ...patternExample(REWARD_ID, EXAMPLE_IDS.reward) })
  reward_id: string;

  @ApiProperty({ description: 'The campaign the reward is offered in (`camp_…`).', example: EXAMPLE_IDS.campaign })
  related_object_id: string;

  @ApiProperty({ enum: ['campaign'], description: 'What `related_object_id` is: always a campaign.' })
  related_object_type: 'campaign';

  @ApiPropertyOptional({ type: AssignmentParamsAnswerDto, description: 'The price; absent for a COIN reward (it has none).' })
  parameters?: AssignmentParamsAnswerDto;

  @ApiProperty({ format: 'date-time', description: 'When the reward was assigned to the campaign.' })
  created_at: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Null until the assignment is first updated.' })
  updated_at: string | null;

  @ApiProperty({ enum: ['reward_assignment'], description: 'The object\'s kind.' })
  object: 'reward_assignment';
}

export class RewardAssignmentListDto {
  @ApiProperty({ enum: ['list'], description: 'The object\'s kind.' })
  object: 'list';

  @ApiProperty({ enum: ['data'], description: 'The property that holds the items.' })
  data_ref: 'data';

  @ApiProperty({ type: [RewardAssignmentDto], description: 'In the order they were made (an array\'s in the order sent); only assignments in live campaigns (not in the bin).' })
  data: RewardAssignmentDto[];

  @ApiProperty({ description: 'Assignments of the query, all pages.' })
  total: number;
}

export class ListAssignmentsQueryDto extends ListPageQueryDto {
  @ApiPropertyOptional({ maxLength: 255, description: 'Only this assignment (`rewa_…`).' })
  @Optional()
  @IsString()
  @MaxLength(255)
  assignment_id?: string;
}

export class MemberRewardsQueryDto extends ListPageQueryDto {
  @ApiPropertyOptional({
    type: Boolean,
    description:
      'true: only what the card can redeem now: a price within its balance, a COIN reward when the balance reaches its `points_ratio`, and a MATERIAL reward with a stock only while a unit is left.',
  })
  @Optional()
  @Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean({ message: 'affordable_only must be true or false' })
  affordable_only?: boolean;
}

export class MemberRewardDto {
  @ApiProperty({ type: RewardDto, description: 'The reward.' })
  reward: RewardDto;

  @ApiProperty({ type: RewardAssignmentDto, description: 'Its assignment to the card\'s campaign: the price.' })
  assignment: RewardAssignmentDto;

  @ApiProperty({ enum: ['loyalty_reward'], description: 'The object\'s kind.' })
  object: 'loyalty_reward';
}

export class MemberRewardListDto {
  @ApiProperty({ enum: ['list'], description: 'The object\'s kind.' })
  object: 'list';

  @ApiProperty({ enum: ['data'], description: 'The property that holds the items.' })
  data_ref: 'data';

  @ApiProperty({ type: [MemberRewardDto], description: 'The rewards offered in the card\'s campaign, in the order they were assigned.' })
  data: MemberRewardDto[];

  @ApiProperty({ description: 'Rewards of the query, all pages.' })
  total: number;
}

export function toRewardAssignmentDto(assignment: StoredAssignment): RewardAssignmentDto {
  return {
    id: assignment.id,
    reward_id: assignment.rewardId,
    related_object_id: assignment.campaignId,
    related_object_type: 'campaign',
    ...(assignment.points !== null ? { parameters: { loyalty: { points: assignment.points } } } : {}),
    created_at: assignment.createdAt.toISOString(),
    updated_at: assignment.updatedAt?.toISOString() ?? null,
    object: 'reward_assignment',
  };
}
