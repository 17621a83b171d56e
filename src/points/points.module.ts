import { Module } from '@nestjs/common';
import { CampaignsModule } from '../campaigns/campaigns.module.js';
import { CardsModule } from '../cards/cards.module.js';
import { CustomersModule } from '../customers/customers.module.js';
import { DatabaseKitModule } from '../database/database-kit.module.js';
import { MembersModule } from '../members/members.module.js';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { BalanceController } from './balance/balance.controller.js';
import { BalanceEventsRepository } from './balance/balance-events.repository.js';
import { BalanceService } from './balance/balance.service.js';
import { BucketRepository } from './buckets/bucket.repository.js';
import { EarningPlanner } from './earning/earning-planner.service.js';
import { EarningRuleRepository } from './earning/earning-rule.repository.js';
import { EarningRulesController } from './earning/earning-rules.controller.js';
import { EarningRulesService } from './earning/earning-rules.service.js';
import { LedgerController } from './ledger/ledger.controller.js';
import { LedgerRepository } from './ledger/ledger.repository.js';
import { LedgerService } from './ledger/ledger.service.js';
import { PointsPosting } from './ledger/posting.service.js';
import { OrderRepository } from './orders/order.repository.js';
import { OrdersController } from './orders/orders.controller.js';
import { OrdersService } from './orders/orders.service.js';
import { ActivationRepository } from './pending/activation.repository.js';
import { ActivationService } from './pending/activation.service.js';
import { PendingEventsRepository } from './pending/pending-events.repository.js';
import { PendingPointsController } from './pending/pending-points.controller.js';
import { PendingPointsRepository } from './pending/pending-points.repository.js';
import { PendingPointsService } from './pending/pending-points.service.js';

/**
 * The points domain: earning rules, orders and earning, pending entries and their activation, the cards'
 * ledger and its one posting path (PointsPosting), balance changes by hand and point buckets. It builds on campaigns, members and customers, and records events through the events domain;
 * nothing imports it back. Its worker side (activation jobs, the sweep) is PointsWorkerModule.
 */
@Module({
  imports: [DatabaseKitModule, CampaignsModule, CardsModule, CustomersModule, MembersModule, IdempotencyModule],
  controllers: [EarningRulesController, OrdersController, PendingPointsController, LedgerController, BalanceController],
  providers: [
    EarningRuleRepository,
    EarningRulesService,
    EarningPlanner,
    OrderRepository,
    OrdersService,
    PendingPointsRepository,
    PendingPointsService,
    ActivationRepository,
    ActivationService,
    PendingEventsRepository,
    LedgerRepository,
    LedgerService,
    PointsPosting,
    BucketRepository,
    BalanceService,
    BalanceEventsRepository,
  ],
  exports: [ActivationService, OrderRepository, PendingPointsRepository, LedgerRepository, BucketRepository, PointsPosting],
})
export class PointsModule {}
