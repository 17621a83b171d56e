import { Global, Module } from '@nestjs/common';
import { CustomerOrderStats } from '../customers/customer-order-stats.js';
import { OrderRepository } from '../points/orders/order.repository.js';
import { PointsModule } from '../points/points.module.js';

/**
 * Wiring only: a customer's answer sums the customer's orders, which the points module owns. Customers stand
 * below points, so they ask through `CustomerOrderStats` (their own token) and this global module binds it
 * to the orders' repository.
 */
@Global()
@Module({
  imports: [PointsModule],
  providers: [{ provide: CustomerOrderStats, useExisting: OrderRepository }],
  exports: [CustomerOrderStats],
})
export class CustomerOrderStatsModule {}
