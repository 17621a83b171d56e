import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * The claim that makes earning exactly-once: one row per (order, earning rule), ever. It is inserted with
 * ON CONFLICT DO NOTHING in the transaction that creates the pending entry or the accrual, so an order sent
 * twice, or twenty times at once, earns under each rule once.
 */
@Entity({ name: 'order_earnings' })
export class OrderEarning {
  @PrimaryColumn({ name: 'order_id', type: 'text' })
  orderId: string;

  @PrimaryColumn({ name: 'earning_rule_id', type: 'text' })
  earningRuleId: string;

  @Column({ name: 'project_id', type: 'text' })
  projectId: string;

  @Column({ name: 'voucher_id', type: 'text' })
  voucherId: string;

  @Column({ type: 'integer' })
  points: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;
}
