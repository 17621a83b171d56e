import type { CardBalance } from '../cards/card.repository.js';
import type { TransactionView } from '../ledger/dto/transaction.dto.js';
import { toTransactionDto } from '../ledger/dto/transaction.dto.js';
import { toPendingPointsDto } from '../pending/dto/pending-points.dto.js';
import type { PendingPoints } from '../pending/pending-points.entity.js';
import type { CampaignRow, CardRow, CustomerRow, OrderRow, PayloadRows } from './payload.repository.js';

/**
 * The `data` of the pending-points events, in the shapes of Voucherify's 2024-01-01 event schemas
 * (SimpleCustomer, SimpleCampaign, SimpleVoucher, SimpleOrder, VoucherBalance, VoucherTransaction,
 * LoyaltyPendingPoints). Pure functions over rows read in the change's transaction.
 */
export type OperationType = 'MANUAL' | 'AUTOMATIC';

function iso(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}

export function customerPayload(row: CustomerRow | undefined, id: string): Record<string, unknown> {
  return { id, source_id: row?.source_id ?? null, name: row?.name ?? null, email: row?.email ?? null, metadata: row?.metadata ?? {}, object: 'customer' };
}

export function campaignPayload(row: CampaignRow | undefined, id: string): Record<string, unknown> {
  return {
    id,
    name: row?.name ?? null,
    campaign_type: 'LOYALTY_PROGRAM',
    type: row?.type ?? null,
    auto_join: row?.auto_join ?? false,
    join_once: true,
    active: row?.active ?? false,
    category_id: row?.category_id ?? null,
    metadata: row?.metadata ?? {},
    start_date: iso(row?.start_date ?? null),
    expiration_date: iso(row?.expiration_date ?? null),
    description: row?.description ?? null,
    created_at: iso(row?.created_at ?? null),
    updated_at: iso(row?.updated_at ?? null),
    object: 'campaign',
  };
}

export function orderPayload(row: OrderRow | undefined, id: string): Record<string, unknown> {
  const amount = row ? Number(row.amount) : null;
  return {
    id,
    source_id: row?.source_id ?? null,
    status: row?.status ?? null,
    customer_id: row?.customer_id ?? null,
    referrer_id: null,
    amount,
    total_amount: amount,
    items: row?.items ?? [],
    metadata: row?.metadata ?? {},
    created_at: iso(row?.created_at ?? null),
    updated_at: iso(row?.updated_at ?? null),
    object: 'order',
  };
}

/** The card as it stands after this change (`balances` may be a running value inside a batch). */
export function voucherPayload(card: CardRow | undefined, id: string, campaign: CampaignRow | undefined, balances: Omit<CardBalance, 'id'>): Record<string, unknown> {
  return {
    id,
    code: card?.code ?? null,
    type: 'LOYALTY_CARD',
    campaign: campaign?.name ?? null,
    campaign_id: card?.campaign_id ?? campaign?.id ?? null,
    holder_id: card?.holder_id ?? null,
    loyalty_card: { points: balances.points, balance: balances.balance, pending_points: balances.pendingPoints },
    is_referral_code: false,
    active: card?.member_active ?? false,
    metadata: {},
    created_at: iso(card?.created_at ?? null),
    updated_at: iso(card?.updated_at ?? null),
    object: 'voucher',
  };
}

/** What every pending-points event carries about the entry's customer, campaign, card and order. */
export function entryContext(rows: PayloadRows, entry: PendingPoints, balances: Omit<CardBalance, 'id'>): Record<string, unknown> {
  const campaign = rows.campaigns.get(entry.campaignId);
  return {
    customer: customerPayload(rows.customers.get(entry.customerId), entry.customerId),
    campaign: campaignPayload(campaign, entry.campaignId),
    voucher: voucherPayload(rows.cards.get(entry.voucherId), entry.voucherId, campaign, balances),
    order: orderPayload(rows.orders.get(entry.orderId), entry.orderId),
  };
}

/** `added`, `canceled`, `updated`: the change of the card's pending points. */
export function pendingChangedData(rows: PayloadRows, entry: PendingPoints, change: number, after: Omit<CardBalance, 'id'>, operation: OperationType): Record<string, unknown> {
  return {
    ...entryContext(rows, entry, after),
    voucher_pending_points_balance: {
      points: change,
      total: after.pendingPoints,
      object: 'balance',
      related_object: { type: 'voucher', id: entry.voucherId },
      operation_type: operation,
    },
    pending_points: toPendingPointsDto(entry),
  };
}

/** `activated`: the balance after, and the ledger transaction that recorded it. */
export function activatedData(rows: PayloadRows, entry: PendingPoints, after: Omit<CardBalance, 'id'>, transaction: TransactionView, operation: OperationType): Record<string, unknown> {
  return {
    ...entryContext(rows, entry, after),
    balance: {
      points: entry.points,
      total: after.points,
      balance: after.balance,
      type: 'loyalty_card',
      object: 'balance',
      related_object: { type: 'voucher', id: entry.voucherId },
      operation_type: operation,
    },
    transaction: toTransactionDto(transaction),
    pending_points: toPendingPointsDto(entry),
  };
}
