import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { type PreparedStatement, prepared, runPrepared } from '../../database/prepared.js';
import type { Tx } from '../../database/transaction-runner.js';
import type { LockedCards } from '../../cards/card.repository.js';
import { CustomerOrderStats, type CustomerOrderTotals } from '../../customers/customer-order-stats.js';
import { Order, type OrderItem, type OrderStatus } from './order.entity.js';

/** The columns a request sets; undefined leaves a column as it is. */
export interface OrderFields {
  status?: OrderStatus;
  amount?: number;
  customerId?: string;
  items?: OrderItem[];
  metadata?: Record<string, unknown>;
}

export interface EarningClaim {
  orderId: string;
  earningRuleId: string;
  voucherId: string;
  points: number;
}

export const CUSTOMER_TOTALS = prepared(
  'orders_customer_totals',
  `SELECT count(*) AS count, coalesce(sum(amount), 0) AS total,
          (array_agg(amount ORDER BY created_at DESC, id DESC))[1] AS last_amount, max(created_at) AS last_date
   FROM orders WHERE customer_id = $2 AND project_id = $1 AND status IN ('PAID', 'FULFILLED')`,
);

const JSON_COLUMNS = new Set(['items', 'metadata']);
const ORDER_COLUMNS = 'id, project_id, source_id, status, amount, discount_amount, customer_id, items, metadata, created_at, updated_at';

interface OrderRow {
  id: string;
  project_id: string;
  source_id: string | null;
  status: OrderStatus;
  amount: string;
  discount_amount: string;
  customer_id: string | null;
  items: OrderItem[];
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date | null;
}

function orderFromRow(row: OrderRow): Order {
  return Object.assign(new Order(), {
    id: row.id,
    projectId: row.project_id,
    sourceId: row.source_id,
    status: row.status,
    amount: Number(row.amount),
    discountAmount: Number(row.discount_amount),
    customerId: row.customer_id,
    items: row.items,
    metadata: row.metadata,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });
}

/** The upsert and update statements, one per set of columns a request sets, prepared once each per connection. */
const SAVE_STATEMENTS = new Map<string, PreparedStatement>();
function saveStatement(text: string): PreparedStatement {
  let statement = SAVE_STATEMENTS.get(text);
  if (!statement) SAVE_STATEMENTS.set(text, (statement = prepared('orders_save', text)));
  return statement;
}

/**
 * The upsert by source id of several new orders of one project that set the same columns (`$1` the project, `$2`
 * the orders as a JSON array of `id`, `source_id` and the columns), in source id order so that concurrent batches
 * lock the rows of the orders they share in one order; their rows returned.
 */
export function upsertOrdersSql(columns: string[]): string {
  const others = columns.filter((c) => c !== 'status' && c !== 'amount');
  return `INSERT INTO orders (id, project_id, source_id, status, amount${others.map((c) => `, ${c}`).join('')})
       SELECT o.id, $1, o.source_id, o.status, o.amount${others.map((c) => `, o.${c}`).join('')}
       FROM jsonb_to_recordset($2::jsonb) AS o(id text, source_id text, status text, amount bigint, customer_id text, items jsonb, metadata jsonb)
       ORDER BY o.source_id
       ON CONFLICT (project_id, source_id) WHERE source_id IS NOT NULL DO UPDATE SET ${[...columns.map((c) => `${c} = EXCLUDED.${c}`), 'updated_at = now()'].join(', ')}
       RETURNING ${ORDER_COLUMNS}`;
}

/**
 * The INSERT of a new order that sets these columns (status and amount always; the others given), with its
 * row returned; an upsert by source id when `bySourceId` (bench/'s plain baseline sends a paid order's).
 */
export function insertOrderSql(columns: string[], bySourceId: boolean): string {
  const others = columns.filter((c) => c !== 'status' && c !== 'amount');
  const update = bySourceId ? `ON CONFLICT (project_id, source_id) WHERE source_id IS NOT NULL DO UPDATE SET ${[...columns.map((c) => `${c} = EXCLUDED.${c}`), 'updated_at = now()'].join(', ')}` : '';
  return `INSERT INTO orders (id, project_id, source_id, status, amount${others.map((c) => `, ${c}`).join('')})
       VALUES ($1, $2, $3, $4, $5${others.map((_, i) => `, $${i + 6}`).join('')})
       ${update} RETURNING ${ORDER_COLUMNS}`;
}

export const CLAIM = prepared(
  'orders_claim',
  `INSERT INTO order_earnings (order_id, earning_rule_id, project_id, voucher_id, points)
   SELECT c.order_id, c.rule, $1, c.card, c.points FROM unnest($2::text[], $3::text[], $4::text[], $5::int[]) AS c(order_id, rule, card, points)
   ON CONFLICT (order_id, earning_rule_id) DO NOTHING RETURNING order_id, earning_rule_id`,
);
export const DISCOUNT = prepared(
  'orders_discount',
  `UPDATE orders SET discount_amount = greatest(discount_amount + $3, 0), updated_at = now() WHERE id = $1 AND project_id = $2 RETURNING ${ORDER_COLUMNS}`,
);
const COLUMN: Record<keyof OrderFields, string> = { status: 'status', amount: 'amount', customerId: 'customer_id', items: 'items', metadata: 'metadata' };

@Injectable()
export class OrderRepository implements CustomerOrderStats {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The customer's PAID and FULFILLED orders (money spent), through idx_orders_customer. */
  async customerTotals(projectId: string, customerId: string): Promise<CustomerOrderTotals> {
    const [row] = (await runPrepared(this.dataSource, CUSTOMER_TOTALS, [projectId, customerId])) as { count: string; total: string; last_amount: string | null; last_date: Date | null }[];
    return { count: Number(row.count), totalAmount: Number(row.total), lastAmount: Number(row.last_amount ?? 0), lastDate: row.last_date };
  }

  /** By id, or else by source id (Voucherify's `{orderId}` accepts both). */
  async findByIdOrSourceId(projectId: string, value: string): Promise<Order | null> {
    return this.dataSource
      .getRepository(Order)
      .createQueryBuilder('o')
      .where('o.project_id = :projectId AND (o.id = :value OR o.source_id = :value)', { projectId, value })
      .orderBy('o.id = :value', 'DESC')
      .getOne();
  }

  async findBySourceId(projectId: string, sourceId: string): Promise<Order | null> {
    return this.dataSource.getRepository(Order).findOneBy({ projectId, sourceId });
  }

  /**
   * Creates or updates the order and returns it, in the caller's transaction. Either way the row stays
   * locked until that transaction ends, so concurrent sends of one order run their earning one after the other.
   * With a source id this is one INSERT … ON CONFLICT, so twenty concurrent first sends make one order.
   */
  async save(tx: Tx, key: { id: string; projectId: string; sourceId?: string; existing: boolean }, fields: OrderFields): Promise<Order> {
    const given = (Object.entries(fields) as [keyof OrderFields, unknown][]).filter(([, value]) => value !== undefined);
    const values = given.map(([name, value]) => (JSON_COLUMNS.has(name) ? JSON.stringify(value) : value));
    if (key.existing) {
      const set = given.map(([name], i) => `${COLUMN[name]} = $${i + 3}`);
      const [[updated]] = await runPrepared<[OrderRow[], number]>(tx, saveStatement(`UPDATE orders SET ${[...set, 'updated_at = now()'].join(', ')} WHERE id = $1 AND project_id = $2 RETURNING ${ORDER_COLUMNS}`), [
        key.id,
        key.projectId,
        ...values,
      ]);
      return orderFromRow(updated);
    }
    const [row] = await runPrepared<OrderRow[]>(
      tx,
      saveStatement(insertOrderSql(given.map(([name]) => COLUMN[name]), key.sourceId !== undefined)),
      [
        key.id,
        key.projectId,
        key.sourceId ?? null,
        fields.status ?? 'CREATED',
        fields.amount ?? 0,
        ...given.filter(([name]) => name !== 'status' && name !== 'amount').map(([name, value]) => (JSON_COLUMNS.has(name) ? JSON.stringify(value) : value)),
      ],
    );
    return orderFromRow(row);
  }

  /**
   * Adds `delta` minor units (negative: gives them back, never below 0) to the order's discount, in the caller's
   * transaction, and returns the order as it is then. A COIN redemption calls it on the row it saved (already
   * locked); a rollback calls it first thing in its transaction, so the order's row is locked before the cards, as
   * everywhere (docs/architecture.md, "How the engine locks"). Null: no such order (deleted since).
   */
  async discount(tx: Tx, projectId: string, orderId: string, delta: number): Promise<Order | null> {
    const [[row]] = await runPrepared<[OrderRow[], number]>(tx, DISCOUNT, [orderId, projectId, delta]);
    return row ? orderFromRow(row) : null;
  }

  /**
   * Creates or updates orders of one project by their source ids (distinct), each setting the same columns, in the
   * caller's transaction; the rows in the order given, each locked until the transaction ends (a batch of paid
   * orders: OrdersService).
   */
  async upsertBySourceId(tx: Tx, projectId: string, orders: { id: string; sourceId: string; fields: OrderFields }[]): Promise<Order[]> {
    const columns = (Object.keys(COLUMN) as (keyof OrderFields)[]).filter((name) => orders[0].fields[name] !== undefined);
    const rows = await runPrepared<OrderRow[]>(tx, saveStatement(upsertOrdersSql(columns.map((name) => COLUMN[name]))), [
      projectId,
      JSON.stringify(
        orders.map(({ id, sourceId, fields }) => ({
          id,
          source_id: sourceId,
          status: fields.status ?? 'CREATED',
          amount: fields.amount ?? 0,
          customer_id: fields.customerId,
          items: fields.items,
          metadata: fields.metadata,
        })),
      ),
    ]);
    const bySourceId = new Map(rows.map((row) => [row.source_id, orderFromRow(row)]));
    return orders.map(({ sourceId }) => {
      const order = bySourceId.get(sourceId);
      if (!order) throw new Error(`order ${sourceId} was not saved`);
      return order;
    });
  }

  /** Claims (order, rule) pairs that never earned, of the project's orders; returns the pairs this call won (`claimKey`). */
  async claim(locked: LockedCards, projectId: string, claims: EarningClaim[]): Promise<Set<string>> {
    if (!claims.length) return new Set();
    locked.require(claims.map((c) => c.voucherId));
    const rows = await runPrepared<{ order_id: string; earning_rule_id: string }[]>(locked.tx, CLAIM, [
      projectId,
      claims.map((c) => c.orderId),
      claims.map((c) => c.earningRuleId),
      claims.map((c) => c.voucherId),
      claims.map((c) => c.points),
    ]);
    return new Set(rows.map((row) => claimKey(row.order_id, row.earning_rule_id)));
  }
}

/** The key of an (order, rule) pair among the claims won. */
export function claimKey(orderId: string, earningRuleId: string): string {
  return `${orderId} ${earningRuleId}`;
}
