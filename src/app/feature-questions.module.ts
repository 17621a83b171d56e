import { Global, Module } from '@nestjs/common';
import { CustomerOrderStats } from '../customers/customer-order-stats.js';
import { CardActivations } from '../members/card-activations.js';
import { OrderRepository } from '../points/orders/order.repository.js';
import { PendingPointsRepository } from '../points/pending/pending-points.repository.js';
import { PointsModule } from '../points/points.module.js';

/**
 * Wiring only: questions that a lower feature's answers ask of a higher one. Customers and members stand
 * below points, which owns orders and pending entries; each asks through a token of its own
 * (`CustomerOrderStats`, `CardActivations`) and this global module binds the token to the points repository
 * that answers it. Only the API's routes ask (CustomersApiModule, MembersApiModule), so only the API imports it.
 */
@Global()
@Module({
  imports: [PointsModule],
  providers: [
    { provide: CustomerOrderStats, useExisting: OrderRepository },
    { provide: CardActivations, useExisting: PendingPointsRepository },
  ],
  exports: [CustomerOrderStats, CardActivations],
})
export class FeatureQuestionsModule {}
