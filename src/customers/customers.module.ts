import { Module } from '@nestjs/common';
import { CustomerRepository } from './customer.repository.js';
import { CustomersController } from './customers.controller.js';
import { CustomersService } from './customers.service.js';

/** Customers: the people members and cards belong to. */
@Module({
  controllers: [CustomersController],
  providers: [CustomersService, CustomerRepository],
  exports: [CustomersService],
})
export class CustomersModule {}
