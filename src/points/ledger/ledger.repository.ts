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

export const INSERT = prepared(
  'ledger_insert',
  `INSERT INTO voucher_transactions (id, project_id, voucher_id, campaign_id, type, points, balance_after, order_id, pending_points_id, source_id, details, created_at)
       SELECT id, project_id, voucher_id, campaign_id, type, points, balance_after, order_id, pending_points_id, source_id, details, $2
       FROM ROWS FROM (json_to_recordset($1::json) AS (id text, project_id text, voucher_id text, campaign_id text, type text, points bigint,
            balance_after bigint, order_id text, pending_points_id text, source_id text, details json)) WITH ORDINALITY AS t(id, project_id, voucher_id, campaign_id,
            type, points, balance_after, order_id, pending_points_id, source_id, details, n)
       ORDER BY n`,
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
