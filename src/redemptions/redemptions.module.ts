import { Module } from '@nestjs/common';
import { CampaignsModule } from '../campaigns/campaigns.module.js';
import { CardsModule } from '../cards/cards.module.js';
import { CustomersModule } from '../customers/customers.module.js';
import { DatabaseKitModule } from '../database/database-kit.module.js';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { MembersModule } from '../members/members.module.js';
import { PointsModule } from '../points/points.module.js';
import { RewardsModule } from '../rewards/rewards.module.js';
import { RedeemController } from './redeem.controller.js';
import { RedeemChecks } from './redeem-checks.service.js';
import { RedeemService } from './redeem.service.js';
import { RedemptionBatches } from './redemption-batches.service.js';
import { RedemptionEventsRepository } from './redemption-events.repository.js';
import { RedemptionReadsService } from './redemption-reads.service.js';
import { RedemptionRepository } from './redemption.repository.js';
import { RedemptionsController } from './redemptions.controller.js';
import { RollbackService } from './rollback.service.js';

/**
 * Redemptions (issue 38): a reward redeemed with a loyalty card and its rollback, the one owner of
 * `redemptions`. It asks rewards (the reward, its offer, its stock unit), points (PointsPosting, orders),
 * members, campaigns and customers; nothing imports it. docs/rewards.md.
 */
@Module({
  imports: [DatabaseKitModule, CardsModule, CampaignsModule, CustomersModule, MembersModule, PointsModule, RewardsModule, IdempotencyModule],
  controllers: [RedeemController, RedemptionsController],
  providers: [RedeemService, RedeemChecks, RedemptionBatches, RollbackService, RedemptionReadsService, RedemptionRepository, RedemptionEventsRepository],
})
export class RedemptionsModule {}
