import { Check, Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import { BIGINT_AS_NUMBER } from '../../database/bigint-as-number.js';

export const ORDER_STATUSES = ['CREATED', 'PAID', 'CANCELED', 'FULFILLED'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** An order item as sent, stored marked `object: "order_item"` (as answered and as the events carry it). */
export interface OrderItem {
  source_id?: string;
  product_id?: string;
  sku_id?: string;
  quantity?: number;
  price?: number;
  amount?: number;
  object: 'order_item';
}


/**
 * A customer's order (`ord_`). `source_id` is the caller's own order number, unique per project when
 * given, which makes POST /v1/orders an upsert and concurrent sends of one order a single row.
 */
@Entity({ name: 'orders' })
@Index('uq_orders_project_source', ['projectId', 'sourceId'], { unique: true, where: '"source_id" IS NOT NULL' })
@Index('idx_orders_customer', ['customerId'])
@Check('chk_orders_discount', `"discount_amount" >= 0`)
export class Order {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ name: 'project_id', type: 'text' })
  projectId: string;

  @Column({ name: 'source_id', type: 'text', nullable: true })
  sourceId: string | null;

  @Column({ type: 'text' })
  status: OrderStatus;

  @Column({ type: 'bigint', transformer: BIGINT_AS_NUMBER })
  amount: number;

  /**
   * The discount its COIN redemptions not rolled back gave it, minor units (docs/rewards.md, "Redeeming"). Only
   * redemptions write it (`OrderRepository.discount`); `total_amount` = amount − this, never below 0.
   */
  @Column({ name: 'discount_amount', type: 'bigint', default: 0, transformer: BIGINT_AS_NUMBER })
  discountAmount: number;

  @Column({ name: 'customer_id', type: 'text', nullable: true })
  customerId: string | null;

  @Column({ type: 'jsonb', default: [] })
  items: OrderItem[];

  @Column({ type: 'jsonb', default: {} })
  metadata: Record<string, unknown>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', precision: 3, nullable: true })
  updatedAt: Date | null;
}

/** What the order costs after its discount (Voucherify's `total_amount`), which earning counts. */
export function totalAmount(order: Pick<Order, 'amount' | 'discountAmount'>): number {
  return Math.max(order.amount - order.discountAmount, 0);
}
