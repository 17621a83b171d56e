import { Injectable } from '@nestjs/common';
import type { Tx } from '../../database/transaction-runner.js';

export interface CampaignRow {
  id: string;
  name: string;
  type: string;
  auto_join: boolean;
  active: boolean;
  category_id: string | null;
  metadata: Record<string, unknown>;
  start_date: Date | null;
  expiration_date: Date | null;
  description: string | null;
  created_at: Date;
  updated_at: Date | null;
}

export interface CustomerRow {
  id: string;
  source_id: string | null;
  name: string | null;
  email: string | null;
  metadata: Record<string, unknown>;
}

export interface OrderRow {
  id: string;
  source_id: string | null;
  status: string;
  customer_id: string | null;
  amount: string;
  items: unknown[];
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date | null;
}

export interface CardRow {
  id: string;
  code: string;
  campaign_id: string;
  holder_id: string | null;
  points: number;
  balance: number;
  pending_points: number;
  member_active: boolean;
  created_at: Date;
  updated_at: Date | null;
}

export interface PayloadRows {
  campaigns: Map<string, CampaignRow>;
  customers: Map<string, CustomerRow>;
  orders: Map<string, OrderRow>;
  cards: Map<string, CardRow>;
}

export interface PayloadIds {
  campaignIds: string[];
  customerIds: string[];
  orderIds: string[];
  cardIds: string[];
}

/**
 * Reads what event payloads show of the campaigns, customers, orders and cards involved in a change: four
 * statements for a whole batch, inside the change's transaction (so cards show their committed balances).
 * It reads other domains' tables directly on purpose: an activation batch must not cost a query per entry.
 */
@Injectable()
export class PayloadRepository {
  async load(tx: Tx, ids: PayloadIds): Promise<PayloadRows> {
    const [campaigns, customers, orders, cards] = await Promise.all([
      tx.query(
        `SELECT id, name, type, auto_join, active, category_id, metadata, start_date, expiration_date, description, created_at, updated_at
         FROM campaigns WHERE id = ANY($1::text[])`,
        [unique(ids.campaignIds)],
      ) as Promise<CampaignRow[]>,
      tx.query(`SELECT id, source_id, name, email, metadata FROM customers WHERE id = ANY($1::text[])`, [unique(ids.customerIds)]) as Promise<CustomerRow[]>,
      tx.query(
        `SELECT id, source_id, status, customer_id, amount, items, metadata, created_at, updated_at FROM orders WHERE id = ANY($1::text[])`,
        [unique(ids.orderIds)],
      ) as Promise<OrderRow[]>,
      tx.query(
        `SELECT v.id, v.code, v.campaign_id, v.holder_id, v.points, v.balance, v.pending_points, (m.status = 'ACTIVE') AS member_active, v.created_at, v.updated_at
         FROM vouchers v LEFT JOIN members m ON m.id = v.member_id WHERE v.id = ANY($1::text[])`,
        [unique(ids.cardIds)],
      ) as Promise<CardRow[]>,
    ]);
    const byId = <T extends { id: string }>(rows: T[]) => new Map(rows.map((row) => [row.id, row]));
    return { campaigns: byId(campaigns), customers: byId(customers), orders: byId(orders), cards: byId(cards) };
  }
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
