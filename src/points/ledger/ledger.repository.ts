import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { prepared, runPrepared } from '../../database/prepared.js';
import type { LockedCards } from '../../cards/card.repository.js';
import { type TransactionDetails, type TransactionType, VoucherTransaction } from './voucher-transaction.entity.js';

export interface NewTransaction {
  id: string;
  projectId: string;
  voucherId: string;
  campaignId: string;
  type: TransactionType;
  points: number;
  balanceAfter: number;
  orderId: string | null;
  pendingPointsId: string | null;
  /** The caller's own id of a change made by hand. */
  sourceId?: string | null;
  details: TransactionDetails;
}

/** The columns of a ledger row as `ledgerInsertSql`'s SELECT gives them, in this order. */
const LEDGER_COLUMNS = 'id, project_id, voucher_id, campaign_id, type, points, balance_after, order_id, pending_points_id, source_id, details, created_at';

/**
 * The one INSERT of ledger rows, for `insert` and for the statements that write rows in the database
 * (activation, expiry): `select` gives the columns of LEDGER_COLUMNS in their order; rows are inserted in its
 * order, which is the cards' `seq` order.
 */
export function ledgerInsertSql(select: string): string {
  return `INSERT INTO voucher_transactions (${LEDGER_COLUMNS})
       ${select}`;
}

/**
 * A row's `details.balance` (Voucherify's VoucherBalance: the card right after the row, `points` the change),
 * built in SQL from expressions of the statement: the same keys, in the same order, as `balanceDetails` builds
 * it for the rows written from Node (test/service/posting.service-spec.ts compares the two). The initial-points
 * trigger (a .sql file) spells it out itself, and is compared too.
 */
export function balanceJsonSql(card: string, total: string, points: string, balance: string): string {
  return `json_build_object('type', 'loyalty_card', 'total', ${total}, 'object', 'balance', 'points', ${points}, 'balance', ${balance},
                            'related_object', json_build_object('id', ${card}, 'type', 'voucher'))`;
}

/** `details.balance` of a row written from Node (`balanceJsonSql` in SQL). */
export function balanceDetails(cardId: string, total: number, points: number, balance: number): TransactionDetails['balance'] {
  return { type: 'loyalty_card', total, object: 'balance', points, balance, related_object: { id: cardId, type: 'voucher' } };
}

/**
 * A ledger row as events carry it (`toTransactionDto` for the rows written from Node), built in SQL from
 * expressions of the statement that wrote it, at its `now()`.
 */
export function transactionJsonSql(row: { id: string; voucherId: string; campaignId: string; type: string; details: string }): string {
  return `json_build_object('id', ${row.id}, 'source_id', NULL, 'voucher_id', ${row.voucherId}, 'campaign_id', ${row.campaignId}, 'source', NULL,
                             'reason', NULL, 'type', ${row.type}, 'details', ${row.details}, 'related_transaction_id', NULL, 'created_at', loyalty_iso(now()))`;
}

export const INSERT = prepared(
  'ledger_insert',
  ledgerInsertSql(`SELECT id, project_id, voucher_id, campaign_id, type, points, balance_after, order_id, pending_points_id, source_id, details, $2
       FROM ROWS FROM (json_to_recordset($1::json) AS (id text, project_id text, voucher_id text, campaign_id text, type text, points bigint,
            balance_after bigint, order_id text, pending_points_id text, source_id text, details json)) WITH ORDINALITY AS t(id, project_id, voucher_id, campaign_id,
            type, points, balance_after, order_id, pending_points_id, source_id, details, n)
       ORDER BY n`),
);

/** The cards' ledger: rows are only ever inserted, inside the transaction that changes the balance. */
@Injectable()
export class LedgerRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** One statement for the whole batch; `seq` follows the order of `rows`. */
  async insert(locked: LockedCards, rows: NewTransaction[], createdAt: Date): Promise<void> {
    if (!rows.length) return;
    locked.require(rows.map((row) => row.voucherId));
    await runPrepared(locked.tx, INSERT, [
        JSON.stringify(
          rows.map((row) => ({
            id: row.id,
            project_id: row.projectId,
            voucher_id: row.voucherId,
            campaign_id: row.campaignId,
            type: row.type,
            points: row.points,
            balance_after: row.balanceAfter,
            order_id: row.orderId,
            pending_points_id: row.pendingPointsId,
            source_id: row.sourceId ?? null,
            details: row.details,
          })),
        ),
        createdAt,
    ]);
  }

  /** A card's transactions, newest first; one extra row tells whether there is a next page. */
  async listForCard(voucherId: string, limit: number, offset: number): Promise<VoucherTransaction[]> {
    return this.dataSource.getRepository(VoucherTransaction).find({ where: { voucherId }, order: { seq: 'DESC' }, take: limit, skip: offset });
  }

  /** Up to `limit` ledger rows of locked cards deleted (a forced campaign deletion's batch); how many. */
  async deleteOfCards(locked: LockedCards, limit: number): Promise<number> {
    if (!locked.cardIds.length) return 0;
    const [, deleted] = (await locked.tx.query(
      'DELETE FROM voucher_transactions WHERE id IN (SELECT id FROM voucher_transactions WHERE voucher_id = ANY($1::text[]) LIMIT $2)',
      [locked.cardIds, limit],
    )) as [unknown, number];
    return deleted;
  }
}
