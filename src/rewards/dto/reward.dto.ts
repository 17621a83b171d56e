import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { EXAMPLE_IDS, patternExample } from '../../common/openapi/examples.js';
import { REWARD_TYPES, type Reward, type RewardAttributes, type RewardParameters, type RewardType } from '../reward.entity.js';
import { RewardAttributesDto } from './reward-request.dto.js';

export const REWARD_ID = /^rew_[a-zA-Z0-9]+$/;

export class CampaignRewardParamsAnswerDto {
  @ApiProperty({ example: EXAMPLE_IDS.campaign, description: 'The loyalty campaign whose card is credited (`camp_…`).' })
  id: string;

  @ApiProperty({ description: 'Points credited to the customer\'s card in that campaign.', example: 100 })
  balance: number;

  @ApiProperty({ enum: ['LOYALTY_PROGRAM'], description: 'The target campaign\'s kind (only loyalty campaigns exist here).' })
  type: 'LOYALTY_PROGRAM';
}

export class CoinRewardParamsAnswerDto {
  @ApiProperty({ description: 'What `points_ratio` points are worth, in units of the order\'s currency.', example: 20 })
  exchange_ratio: number;

  @ApiProperty({ description: 'How many points are worth `exchange_ratio`.', example: 100 })
  points_ratio: number;
}

export class ProductRewardParamsAnswerDto {
  @ApiProperty({ description: 'The product, as given.', example: 'prod_mug_large' })
  id: string;

  @ApiProperty({ type: String, nullable: true, description: 'The SKU, as given; null: the product itself.', example: 'sku_mug_large_blue' })
  sku_id: string | null;
}

/** One of the three, by `type`. */
export class RewardParamsAnswerDto {
  @ApiPropertyOptional({ type: CampaignRewardParamsAnswerDto, description: 'type CAMPAIGN.' })
  campaign?: CampaignRewardParamsAnswerDto;

  @ApiPropertyOptional({ type: CoinRewardParamsAnswerDto, description: 'type COIN.' })
  coin?: CoinRewardParamsAnswerDto;

  @ApiPropertyOptional({ type: ProductRewardParamsAnswerDto, description: 'type MATERIAL.' })
  product?: ProductRewardParamsAnswerDto;
}

export class RewardDto {
  @ApiProperty({ description: 'The reward (`rew_` + 24 base62).', ...patternExample(REWARD_ID, EXAMPLE_IDS.reward) })
  id: string;

  @ApiProperty({ description: 'What the member sees.', example: 'Coffee mug' })
  name: string;

  @ApiProperty({ enum: REWARD_TYPES, description: 'CAMPAIGN (points on a card of another loyalty campaign), COIN (pay with points), MATERIAL (a product).' })
  type: RewardType;

  @ApiProperty({ type: RewardParamsAnswerDto, description: 'The one object of its type.' })
  parameters: RewardParameters;

  @ApiProperty({ type: Number, nullable: true, description: 'MATERIAL: the units there are in all; null: unlimited (always null for the other types). Units left = `stock` − `redeemed`.', example: 50 })
  stock: number | null;

  @ApiProperty({ description: 'Successful redemptions of the reward that were not rolled back.', example: 0 })
  redeemed: number;

  @ApiProperty({ type: RewardAttributesDto, description: 'MATERIAL: as given; `{}` for the other types.' })
  attributes: RewardAttributes;

  @ApiProperty({ format: 'date-time', description: 'When the reward was created.' })
  created_at: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Null until the reward is first updated.' })
  updated_at: string | null;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Your own key/value pairs; `{}` when none.' })
  metadata: Record<string, unknown>;

  @ApiProperty({ enum: ['reward'], description: 'The object\'s kind.' })
  object: 'reward';
}

export class RewardListDto {
  @ApiProperty({ enum: ['list'], description: 'The object\'s kind.' })
  object: 'list';

  @ApiProperty({ enum: ['data'], description: 'The property that holds the items.' })
  data_ref: 'data';

  @ApiProperty({ type: [RewardDto], description: 'Oldest first.' })
  data: RewardDto[];

  @ApiProperty({ description: 'Rewards of the query, all pages.' })
  total: number;
}

export function toRewardDto(reward: Reward): RewardDto {
  return {
    id: reward.id,
    name: reward.name,
    type: reward.type,
    parameters: reward.parameters,
    stock: reward.stock,
    redeemed: reward.redeemed,
    attributes: reward.attributes,
    created_at: reward.createdAt.toISOString(),
    updated_at: reward.updatedAt?.toISOString() ?? null,
    metadata: reward.metadata,
    object: 'reward',
  };
}
