import { Module } from '@nestjs/common';
import { CustomerRepository } from './customer.repository.js';
import { CustomersService } from './customers.service.js';

/** Customers: the people members and cards belong to (what other features ask; the routes are CustomersApiModule). */
@Module({
  providers: [CustomersService, CustomerRepository],
  exports: [CustomersService, CustomerRepository],
})
export class CustomersModule {}
