import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { Customer } from './customer.entity.js';

/** The fields a caller may set on a customer; undefined leaves a field as it is. */
export type CustomerFields = Partial<Pick<Customer, 'name' | 'description' | 'email' | 'phone' | 'birthdate' | 'address' | 'metadata'>>;

export interface CampaignPoints {
  campaign: string;
  points: number;
}

@Injectable()
export class CustomerRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async findById(projectId: string, id: string): Promise<Customer | null> {
    return this.dataSource.getRepository(Customer).findOneBy({ projectId, id });
  }

  /** Voucherify's `{customerId}` is an id or a source id; an id match wins. */
  async findByIdOrSourceId(projectId: string, value: string): Promise<Customer | null> {
    return this.dataSource
      .getRepository(Customer)
      .createQueryBuilder('c')
      .where('c.project_id = :projectId AND (c.id = :value OR c.source_id = :value)', { projectId, value })
      .orderBy('c.id = :value', 'DESC')
      .getOne();
  }

  async create(projectId: string, id: string, fields: CustomerFields): Promise<Customer> {
    return this.insert(projectId, id, null, fields, '');
  }

  /**
   * The customer with this source id, created with `fields` if missing and otherwise updated with them,
   * in one statement: two requests for the same new source id end with one customer.
   */
  async upsertBySourceId(projectId: string, id: string, sourceId: string, fields: CustomerFields): Promise<Customer> {
    const names = given(fields).map(([key]) => key);
    const set = names.length ? `${names.map((name) => `${name} = EXCLUDED.${name}`).join(', ')}, updated_at = now()` : 'source_id = EXCLUDED.source_id';
    return this.insert(projectId, id, sourceId, fields, `ON CONFLICT (project_id, source_id) WHERE source_id IS NOT NULL DO UPDATE SET ${set}`);
  }

  private async insert(projectId: string, id: string, sourceId: string | null, fields: CustomerFields, onConflict: string): Promise<Customer> {
    const columns = given(fields);
    const [row] = (await this.dataSource.query(
      `INSERT INTO customers (id, project_id, source_id${columns.map(([name]) => `, ${name}`).join('')})
       VALUES ($1, $2, $3${columns.map((_, i) => `, $${i + 4}`).join('')})
       ${onConflict} RETURNING id`,
      [id, projectId, sourceId, ...columns.map(([name, value]) => ((name === 'address' || name === 'metadata') && value !== null ? JSON.stringify(value) : value))],
    )) as { id: string }[];
    return this.dataSource.getRepository(Customer).findOneByOrFail({ id: row.id });
  }

  async update(projectId: string, id: string, fields: CustomerFields): Promise<Customer> {
    const changes = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
    if (Object.keys(changes).length) await this.dataSource.getRepository(Customer).update({ projectId, id }, { ...changes, updatedAt: () => 'now()' });
    return this.dataSource.getRepository(Customer).findOneByOrFail({ projectId, id });
  }

  /** Balance per campaign over the customer's cards held by live members of live campaigns. */
  async pointsByCampaign(projectId: string, customerId: string): Promise<CampaignPoints[]> {
    const rows = (await this.dataSource.query(
      `SELECT c.name AS campaign, sum(v.balance)::float8 AS points
       FROM vouchers v
       JOIN members m ON m.id = v.member_id AND m.status <> 'DELETED'
       JOIN campaigns c ON c.id = v.campaign_id AND c.deleted_at IS NULL
       WHERE v.holder_id = $1 AND v.project_id = $2
       GROUP BY c.name ORDER BY c.name`,
      [customerId, projectId],
    )) as CampaignPoints[];
    return rows;
  }
}

/** The fields that were sent; the keys double as column names (they are the same words). */
function given(fields: CustomerFields): [keyof CustomerFields, unknown][] {
  return (Object.entries(fields) as [keyof CustomerFields, unknown][]).filter(([, value]) => value !== undefined);
}
