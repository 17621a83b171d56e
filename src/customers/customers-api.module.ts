import { Module } from '@nestjs/common';
import { CustomerAnswersService } from './customer-answers.service.js';
import { CustomersController } from './customers.controller.js';
import { CustomersModule } from './customers.module.js';

/**
 * The customer routes. Their answers sum the customer's orders through `CustomerOrderStats`, which the API's
 * composition binds (FeatureQuestionsModule); the worker, which has no customer routes, needs no binding.
 */
@Module({
  imports: [CustomersModule],
  controllers: [CustomersController],
  providers: [CustomerAnswersService],
})
export class CustomersApiModule {}
