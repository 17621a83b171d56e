import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { LockedCards } from '../cards/card.repository.js';
import { prepared, runPrepared } from '../database/prepared.js';
import { Redemption } from './redemption.entity.js';

export type NewRedemption = Omit<Redemption, 'seq' | 'createdAt'>;

/** A card's columns the answers show after a redemption, read under its lock. */
export interface CardState {
  id: string;
  code: string;
  campaignId: string;
  holderId: string | null;
  points: number;
  balance: number;
  redeemedPoints: number;
  redeemedQuantity: number;
  createdAt: Date;
  updatedAt: Date | null;
}

/** What the list of redemptions is filtered by (all optional); `voucherId` for a card's list. */
export interface RedemptionFilter {
  campaignId?: string;
  customerId?: string;
  orderId?: string;
  voucherId?: string;
  createdBefore?: string;
  createdAfter?: string;
}

const FILTERED = `FROM redemptions r WHERE r.project_id = $1 AND ($2::text IS NULL OR r.campaign_id = $2) AND ($3::text IS NULL OR r.customer_id = $3)
  AND ($4::text IS NULL OR r.order_id = $4) AND ($5::text IS NULL OR r.voucher_id = $5)
  AND ($6::timestamptz IS NULL OR r.created_at < $6) AND ($7::timestamptz IS NULL OR r.created_at > $7)`;

/** Redemptions' (or rollbacks') rows, in the order given (`seq` follows it), each `created_at` returned. */
export const INSERT = prepared(
  'redemptions_insert',
  `INSERT INTO redemptions (id, project_id, object, redemption_id, status, voucher_id, campaign_id, customer_id, reward_id, assignment_id, points, buckets,
                            target_card_id, target_points, order_id, tracking_id, reason, metadata, transaction_id, snapshot)
   SELECT r.id, r.project_id, r.object, r.redemption_id, r.status, r.voucher_id, r.campaign_id, r.customer_id, r.reward_id, r.assignment_id, r.points, r.buckets,
          r.target_card_id, r.target_points, r.order_id, r.tracking_id, r.reason, r.metadata, r.transaction_id, r.snapshot
   FROM ROWS FROM (jsonb_to_recordset($1::jsonb) AS (id text, project_id text, object text, redemption_id text, status text, voucher_id text, campaign_id text,
          customer_id text, reward_id text, assignment_id text, points bigint, buckets jsonb, target_card_id text, target_points bigint, order_id text,
          tracking_id text, reason text, metadata jsonb, transaction_id text, snapshot jsonb)) WITH ORDINALITY AS r
   ORDER BY r.ordinality
   RETURNING id, created_at`,
);

/** Locked cards' columns that a redemption's answer shows (`$1`: their ids). */
export const CARD_STATES = prepared(
  'redemptions_card_states',
  `SELECT id, code, campaign_id, holder_id, points::float8 AS points, balance::float8 AS balance, redeemed_points::float8 AS redeemed_points, redeemed_quantity, created_at, updated_at
   FROM vouchers WHERE id = ANY($1::text[])`,
);

/**
 * Redemptions and their rollbacks: the only writer of `redemptions`. Every query names the project. A row is
 * written in the transaction that posts its points, under its card's lock (docs/architecture.md, "How the engine
 * locks": the card first, then the rows that reference it); a redemption's status changes only under that lock.
 */
@Injectable()
export class RedemptionRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(locked: LockedCards, row: NewRedemption): Promise<Redemption> {
    return (await this.insertAll(locked, [row]))[0];
  }

  /** Rows of redemptions (or rollbacks) of locked cards, in one statement; as written, in the order given. */
  async insertAll(locked: LockedCards, rows: NewRedemption[]): Promise<Redemption[]> {
    locked.require(rows.map((row) => row.voucherId));
    const json = rows.map((row) => ({
      id: row.id,
      project_id: row.projectId,
      object: row.object,
      redemption_id: row.redemptionId,
      status: row.status,
      voucher_id: row.voucherId,
      campaign_id: row.campaignId,
      customer_id: row.customerId,
      reward_id: row.rewardId,
      assignment_id: row.assignmentId,
      points: row.points,
      buckets: row.buckets,
      target_card_id: row.targetCardId,
      target_points: row.targetPoints,
      order_id: row.orderId,
      tracking_id: row.trackingId,
      reason: row.reason,
      metadata: row.metadata,
      transaction_id: row.transactionId,
      snapshot: row.snapshot,
    }));
    const saved = new Map((await runPrepared<{ id: string; created_at: Date }[]>(locked.tx, INSERT, [JSON.stringify(json)])).map((r) => [r.id, r.created_at]));
    return rows.map((row) => Object.assign(new Redemption(), row, { createdAt: saved.get(row.id) as Date }));
  }

  find(projectId: string, id: string): Promise<Redemption | null> {
    return this.dataSource.getRepository(Redemption).findOneBy({ projectId, id });
  }

  /** A redemption read again under its card's lock (its status cannot change meanwhile). */
  async findLocked(locked: LockedCards, projectId: string, id: string): Promise<Redemption | null> {
    return locked.tx.getRepository(Redemption).findOneBy({ projectId, id });
  }

  /** A redemption rolled back, under its card's lock; false when it was not SUCCEEDED. */
  async markRolledBack(locked: LockedCards, projectId: string, id: string): Promise<boolean> {
    const [, affected] = (await locked.tx.query(`UPDATE redemptions SET status = 'ROLLED_BACK' WHERE project_id = $1 AND id = $2 AND status = 'SUCCEEDED'`, [projectId, id])) as [
      unknown,
      number,
    ];
    return affected > 0;
  }

  /** The rollbacks of redemptions, by the redemption's id. */
  async rollbacksOf(projectId: string, ids: string[]): Promise<Map<string, Redemption>> {
    if (!ids.length) return new Map();
    const rows = await this.dataSource
      .getRepository(Redemption)
      .createQueryBuilder('r')
      .where('r.project_id = :projectId AND r.redemption_id IN (:...ids)', { projectId, ids })
      .getMany();
    return new Map(rows.map((row) => [row.redemptionId as string, row]));
  }

  /** Redemptions and rollbacks, newest first, filtered; and how many match. */
  async list(projectId: string, filter: RedemptionFilter, page: { limit: number; offset: number }): Promise<{ rows: Redemption[]; total: number }> {
    const params = [
      projectId,
      filter.campaignId ?? null,
      filter.customerId ?? null,
      filter.orderId ?? null,
      filter.voucherId ?? null,
      filter.createdBefore ?? null,
      filter.createdAfter ?? null,
    ];
    const ids = (await this.dataSource.query(`SELECT r.id ${FILTERED} ORDER BY r.seq DESC LIMIT $8 OFFSET $9`, [...params, page.limit, page.offset])) as { id: string }[];
    const [{ total }] = (await this.dataSource.query(`SELECT count(*)::int AS total ${FILTERED}`, params)) as { total: number }[];
    if (!ids.length) return { rows: [], total };
    const rows = await this.dataSource
      .getRepository(Redemption)
      .createQueryBuilder('r')
      .where('r.id IN (:...ids)', { ids: ids.map((row) => row.id) })
      .getMany();
    const byId = new Map(rows.map((row) => [row.id, row]));
    return { rows: ids.map((row) => byId.get(row.id)).filter((row): row is Redemption => row !== undefined), total };
  }

  /** Locked cards' columns the answers show, as they are now in the caller's transaction. */
  async cardStates(locked: LockedCards, ids: string[]): Promise<Map<string, CardState>> {
    locked.require(ids);
    const rows = (await runPrepared(locked.tx, CARD_STATES, [ids])) as { id: string; code: string; campaign_id: string; holder_id: string | null; points: number; balance: number; redeemed_points: number; redeemed_quantity: number; created_at: Date; updated_at: Date | null }[];
    return new Map(
      rows.map((row) => [
        row.id,
        {
          id: row.id,
          code: row.code,
          campaignId: row.campaign_id,
          holderId: row.holder_id,
          points: row.points,
          balance: row.balance,
          redeemedPoints: row.redeemed_points,
          redeemedQuantity: row.redeemed_quantity,
          createdAt: row.created_at,
          updatedAt: row.updated_at,
        },
      ]),
    );
  }
}
