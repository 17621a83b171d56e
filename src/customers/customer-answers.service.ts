import { Injectable } from '@nestjs/common';
import type { ProjectContext } from '../auth/auth.service.js';
import type { Customer } from './customer.entity.js';
import { CustomerOrderStats } from './customer-order-stats.js';
import { CustomerRepository } from './customer.repository.js';
import { CustomersService } from './customers.service.js';
import { type CustomerDto, toCustomerDto, type UpsertCustomerDto } from './dto/customer.dto.js';

/**
 * The customer routes' answers: the customer with its card balances by campaign and its orders summed. API
 * only (CustomersApiModule): the order totals are asked of the points module through the composition.
 */
@Injectable()
export class CustomerAnswersService {
  constructor(
    private readonly customers: CustomersService,
    private readonly repository: CustomerRepository,
    private readonly orders: CustomerOrderStats,
  ) {}

  async upsert(project: ProjectContext, dto: UpsertCustomerDto): Promise<CustomerDto> {
    return this.view(project, await this.customers.upsert(project, dto));
  }

  async get(project: ProjectContext, idOrSourceId: string): Promise<CustomerDto> {
    return this.view(project, await this.customers.require(project, idOrSourceId));
  }

  private async view(project: ProjectContext, customer: Customer): Promise<CustomerDto> {
    const [balances, orders] = await Promise.all([this.repository.pointsByCampaign(project.id, customer.id), this.orders.customerTotals(project.id, customer.id)]);
    return toCustomerDto(customer, balances, orders);
  }
}
