import { Module } from '@nestjs/common';
import { CampaignsModule } from '../campaigns/campaigns.module.js';
import { DatabaseKitModule } from '../database/database-kit.module.js';
import { MembersModule } from '../members/members.module.js';
import { CampaignRewardsController } from './campaign-rewards.controller.js';
import { MemberRewardsController } from './member-rewards.controller.js';
import { RewardAssignmentRepository } from './reward-assignment.repository.js';
import { RewardAssignmentsService } from './reward-assignments.service.js';
import { RewardRepository } from './reward.repository.js';
import { RewardsController } from './rewards.controller.js';
import { RewardsService } from './rewards.service.js';

/**
 * Rewards: the catalogue (`rewards`), their assignments to loyalty campaigns at a price in points
 * (`reward_assignments`), and the rewards a member's card is offered. It asks campaigns (a campaign by id or
 * name) and members (a published card by code); redemptions import it (a reward, its offer, its stock unit). docs/rewards.md.
 */
@Module({
  imports: [DatabaseKitModule, CampaignsModule, MembersModule],
  controllers: [RewardsController, CampaignRewardsController, MemberRewardsController],
  providers: [RewardsService, RewardAssignmentsService, RewardRepository, RewardAssignmentRepository],
  exports: [RewardsService, RewardRepository, RewardAssignmentRepository],
})
export class RewardsModule {}
