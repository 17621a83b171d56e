import { Injectable } from '@nestjs/common';
import type { ProjectContext } from '../auth/auth.service.js';
import { ApiError } from '../common/errors/api-error.js';
import { base62Id } from '../common/ids.js';
import type { Customer } from './customer.entity.js';
import { type CustomerFields, CustomerRepository } from './customer.repository.js';
import type { CustomerFieldsDto, UpsertCustomerDto } from './dto/customer.dto.js';

export function newCustomerId(): string {
  return base62Id('cust_', 24);
}

@Injectable()
export class CustomersService {
  constructor(private readonly customers: CustomerRepository) {}

  /** POST /v1/customers: update by id, upsert by source_id, or create. */
  async upsert(project: ProjectContext, dto: UpsertCustomerDto): Promise<Customer> {
    return this.save(project, dto);
  }

  /** By id or source id, or 404 `customer`. */
  async require(project: ProjectContext, idOrSourceId: string): Promise<Customer> {
    const customer = await this.customers.findByIdOrSourceId(project.id, idOrSourceId);
    if (!customer) throw ApiError.notFound('customer', idOrSourceId);
    return customer;
  }

  /** The id of the customer with this id or source id, if there is one. */
  async findIdOrSourceId(project: ProjectContext, value: string): Promise<string | null> {
    return (await this.customers.findByIdOrSourceId(project.id, value))?.id ?? null;
  }

  /** An existing customer by id, or 404 `customer`. */
  /** Customers by id, read by one statement; an id without one is absent. */
  byIds(project: ProjectContext, ids: string[]): Promise<Map<string, Customer>> {
    return this.customers.findByIds(project.id, ids);
  }

  async requireById(project: ProjectContext, id: string): Promise<Customer> {
    const customer = await this.customers.findById(project.id, id);
    if (!customer) throw ApiError.notFound('customer', id);
    return customer;
  }

  /** The customer with this source id, made if missing (enrolment by source id). */
  async ensureBySourceId(project: ProjectContext, sourceId: string): Promise<Customer> {
    return this.customers.upsertBySourceId(project.id, newCustomerId(), sourceId, {});
  }

  /**
   * v1 enrolment's `customer`: a string is an id or a source id (made if unknown, as Voucherify does); an
   * object is saved like POST /v1/customers.
   */
  async resolve(project: ProjectContext, customer: string | UpsertCustomerDto): Promise<Customer> {
    if (typeof customer === 'string' && customer.trim() === '') throw ApiError.invalidPayload('customer must not be empty');
    if (typeof customer === 'string') return (await this.customers.findByIdOrSourceId(project.id, customer)) ?? this.ensureBySourceId(project, customer);
    if (customer.id === undefined && customer.source_id === undefined) throw ApiError.invalidPayload('customer must have id or source_id');
    return this.save(project, customer);
  }

  /**
   * `resolve` for several customers at once (a batch of paid orders), each its own outcome: those named by
   * source id alone (the common case) found or made by one statement, the others one by one.
   */
  async resolveAll(project: ProjectContext, customers: UpsertCustomerDto[]): Promise<PromiseSettledResult<Customer>[]> {
    const bySourceOnly = (dto: UpsertCustomerDto) => dto.id === undefined && dto.source_id !== undefined && Object.values(toFields(dto)).every((value) => value === undefined);
    const sourceIds = [...new Set(customers.filter(bySourceOnly).map((dto) => dto.source_id as string))].sort();
    const known = sourceIds.length ? await this.customers.ensureManyBySourceId(project.id, sourceIds, newCustomerId) : new Map<string, Customer>();
    return Promise.allSettled(customers.map(async (dto) => (bySourceOnly(dto) ? (known.get(dto.source_id as string) as Customer) : this.resolve(project, dto))));
  }

  private async save(project: ProjectContext, dto: UpsertCustomerDto): Promise<Customer> {
    const fields = toFields(dto);
    if (dto.id !== undefined) {
      await this.requireById(project, dto.id);
      return this.customers.update(project.id, dto.id, fields);
    }
    if (dto.source_id !== undefined) return this.customers.upsertBySourceId(project.id, newCustomerId(), dto.source_id, fields);
    return this.customers.create(project.id, newCustomerId(), fields);
  }
}

function toFields(dto: CustomerFieldsDto): CustomerFields {
  return {
    name: dto.name,
    description: dto.description,
    email: dto.email,
    phone: dto.phone,
    birthdate: dto.birthdate !== undefined ? dto.birthdate : dto.birthday,
    address: dto.address === undefined ? undefined : dto.address === null ? null : { ...dto.address },
    metadata: dto.metadata === undefined ? undefined : (dto.metadata ?? {}),
  };
}
