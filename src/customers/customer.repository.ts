import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { prepared, runPrepared } from '../database/prepared.js';
import { Customer } from './customer.entity.js';

const CUSTOMER_COLUMNS = 'id, project_id, source_id, name, description, email, phone, birthdate, address, metadata, created_at, updated_at';

interface CustomerRow {
  id: string;
  project_id: string;
  source_id: string | null;
  name: string | null;
  description: string | null;
  email: string | null;
  phone: string | null;
  birthdate: string | null;
  address: Customer['address'];
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date | null;
}

function customerFromRow(row: CustomerRow): Customer {
  return Object.assign(new Customer(), {
    id: row.id,
    projectId: row.project_id,
    sourceId: row.source_id,
    name: row.name,
    description: row.description,
    email: row.email,
    phone: row.phone,
    birthdate: row.birthdate,
    address: row.address,
    metadata: row.metadata,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });
}

/**
 * The customers of these source ids (`$2`, distinct), the missing ones made with the ids `$3` (same order), in one
 * statement that writes no row version for a known customer (a paid order's or an enrolment's, the common case);
 * in source id order, so that two such statements making the same customers take their index entries in the same
 * order. Its snapshot cannot see a customer another transaction made after it began (its INSERT then conflicts
 * and returns nothing): the caller reads those again (BY_SOURCE_ID).
 */
export const ENSURE_BY_SOURCE_ID = prepared(
  'customers_ensure',
  `WITH made AS (
     INSERT INTO customers (id, project_id, source_id)
     SELECT w.id, $1, w.source_id FROM unnest($2::text[], $3::text[]) AS w(source_id, id) ORDER BY w.source_id
     ON CONFLICT (project_id, source_id) WHERE source_id IS NOT NULL DO NOTHING
     RETURNING ${CUSTOMER_COLUMNS}
   )
   SELECT * FROM made
   UNION ALL
   SELECT ${CUSTOMER_COLUMNS} FROM customers WHERE project_id = $1 AND source_id = ANY($2::text[]) AND source_id NOT IN (SELECT source_id FROM made)`,
);
/** A customer by id (a redemption's card holder: bench/'s plain baseline sends it too). */
export const BY_ID = prepared('customers_by_id', `SELECT ${CUSTOMER_COLUMNS} FROM customers WHERE project_id = $1 AND id = ANY($2::text[])`);
export const BY_SOURCE_ID = prepared('customers_by_source_id', `SELECT ${CUSTOMER_COLUMNS} FROM customers WHERE project_id = $1 AND source_id = $2`);

/** The fields a caller may set on a customer; undefined leaves a field as it is. */
export type CustomerFields = Partial<Pick<Customer, 'name' | 'description' | 'email' | 'phone' | 'birthdate' | 'address' | 'metadata'>>;

export interface CampaignPoints {
  campaign: string;
  points: number;
  /** Points of the customer's cards there spent on rewards, less those rolled back. */
  redeemed: number;
}

@Injectable()
export class CustomerRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** BY_ID, a fixed statement: TypeORM's findOneBy built and hydrated its SELECT at each call, on every redemption. */
  async findById(projectId: string, id: string): Promise<Customer | null> {
    return (await this.findByIds(projectId, [id])).get(id) ?? null;
  }

  /** Customers by id (BY_ID, one statement), by id; an id without one is absent. */
  async findByIds(projectId: string, ids: string[]): Promise<Map<string, Customer>> {
    const rows = await runPrepared<CustomerRow[]>(this.dataSource, BY_ID, [projectId, [...new Set(ids)]]);
    return new Map(rows.map((row) => [row.id, customerFromRow(row)]));
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
    if (!names.length) return this.ensureBySourceId(projectId, id, sourceId);
    const set = `${names.map((name) => `${name} = EXCLUDED.${name}`).join(', ')}, updated_at = now()`;
    return this.insert(projectId, id, sourceId, fields, `ON CONFLICT (project_id, source_id) WHERE source_id IS NOT NULL DO UPDATE SET ${set}`);
  }

  /**
   * The customers with these source ids (distinct), each created if missing with the id `newId` gives it, changing
   * nothing of those that exist: ENSURE_BY_SOURCE_ID, then, for any its snapshot could not see (made by another
   * transaction meanwhile), a read each. By source id.
   */
  async ensureManyBySourceId(projectId: string, sourceIds: string[], newId: () => string): Promise<Map<string, Customer>> {
    const rows = await runPrepared<CustomerRow[]>(this.dataSource, ENSURE_BY_SOURCE_ID, [projectId, sourceIds, sourceIds.map(() => newId())]);
    const found = new Map(rows.map((row) => [row.source_id as string, customerFromRow(row)]));
    for (const sourceId of sourceIds.filter((s) => !found.has(s))) {
      const [again] = await runPrepared<CustomerRow[]>(this.dataSource, BY_SOURCE_ID, [projectId, sourceId]);
      found.set(sourceId, customerFromRow(again));
    }
    return found;
  }

  /** The customer with this source id, created with the id `id` if missing, changing nothing if it exists. */
  private async ensureBySourceId(projectId: string, id: string, sourceId: string): Promise<Customer> {
    return (await this.ensureManyBySourceId(projectId, [sourceId], () => id)).get(sourceId) as Customer;
  }

  private async insert(projectId: string, id: string, sourceId: string | null, fields: CustomerFields, onConflict: string): Promise<Customer> {
    const columns = given(fields);
    const [row] = (await this.dataSource.query(
      `INSERT INTO customers (id, project_id, source_id${columns.map(([name]) => `, ${name}`).join('')})
       VALUES ($1, $2, $3${columns.map((_, i) => `, $${i + 4}`).join('')})
       ${onConflict} RETURNING ${CUSTOMER_COLUMNS}`,
      [id, projectId, sourceId, ...columns.map(([name, value]) => ((name === 'address' || name === 'metadata') && value !== null ? JSON.stringify(value) : value))],
    )) as CustomerRow[];
    return customerFromRow(row);
  }

  async update(projectId: string, id: string, fields: CustomerFields): Promise<Customer> {
    const changes = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
    if (Object.keys(changes).length) await this.dataSource.getRepository(Customer).update({ projectId, id }, { ...changes, updatedAt: () => 'now()' });
    return this.dataSource.getRepository(Customer).findOneByOrFail({ projectId, id });
  }

  /** Balance per campaign over the customer's cards held by live members of live campaigns. */
  async pointsByCampaign(projectId: string, customerId: string): Promise<CampaignPoints[]> {
    const rows = (await this.dataSource.query(
      `SELECT c.name AS campaign, sum(v.balance)::float8 AS points, sum(v.redeemed_points)::float8 AS redeemed
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
