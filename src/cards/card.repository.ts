import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { prepared, runPrepared } from '../database/prepared.js';
import type { Tx } from '../database/transaction-runner.js';

export const LOCK = prepared('cards_lock', 'SELECT id FROM vouchers WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE');
export const APPLY = prepared(
  'cards_apply',
  `UPDATE vouchers v SET points = v.points + d.points, balance = v.balance + d.points - d.removed,
     pending_points = v.pending_points + d.pending, subtracted_points = v.subtracted_points + d.removed,
     added_points = v.added_points + d.added, pending_canceled_points = v.pending_canceled_points + d.canceled, updated_at = now()
   FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[]) AS d(id, points, pending, removed, added, canceled)
   WHERE v.id = d.id
   RETURNING v.id, v.points, v.balance, v.pending_points`,
);

/** The point columns of a card after a change. */
export interface CardBalance {
  id: string;
  points: number;
  balance: number;
  pendingPoints: number;
}


/**
 * A change of one card's point columns: `points` reaches the balance (and the lifetime total); `removed`
 * leaves the balance by hand (counted in `subtracted_points`; the lifetime total keeps it). Of `points`,
 * `added` were added by hand (`added_points`); of the pending change, `canceled` were canceled
 * (`pending_canceled_points`).
 */
export interface CardDelta {
  cardId: string;
  points: number;
  pending: number;
  removed?: number;
  added?: number;
  canceled?: number;
}

/** bigint columns: node-postgres hands them over as strings. */
interface CardBalanceRow {
  id: string;
  points: string;
  balance: string;
  pending_points: string;
}

/**
 * The point columns of loyalty cards, and the one lock discipline of every write that touches a card
 * (docs/architecture.md, "How the engine locks"): the cards a transaction will change are locked first, in
 * one statement, in id order, `FOR NO KEY UPDATE`; only then are rows that reference them written (order
 * earnings, pending entries, ledger rows, events) and their point columns changed. The repositories that
 * write such rows take the `LockedCards` that `lock` returns instead of a bare transaction, so a write
 * before the lock does not compile, and a write to a card outside the lock throws.
 *
 * Why NO KEY UPDATE and not UPDATE: inserting a row that references a card takes `FOR KEY SHARE` on it
 * (the foreign key check). `FOR UPDATE` conflicts with that share lock, so two orders on one card that
 * had each inserted a referencing row and then asked for `FOR UPDATE` waited for each other (a deadlock).
 * `FOR NO KEY UPDATE` is the lock an UPDATE of the point columns takes anyway; it serialises writers of
 * the card and lets foreign-key checks through.
 */
@Injectable()
export class CardRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Locks the cards, in id order, waiting for transactions that hold them: the first step of any write
   * that changes them. The lock is held until the transaction ends. A card that no longer exists (its
   * campaign deleted for good meanwhile, the deletion's batch committed while this waited) is not in the
   * answer: callers check `has` and answer as for a card that is not there, never write for it.
   */
  async lock(tx: Tx, cardIds: Iterable<string>): Promise<LockedCards> {
    const ids = [...new Set(cardIds)].sort();
    if (!ids.length) return new LockedCards(tx, []);
    const rows = (await runPrepared(tx, LOCK, [ids])) as { id: string }[];
    return new LockedCards(tx, rows.map((row) => row.id));
  }

  /** Locks the cards of the order's PENDING entries (the order's row is locked by the caller, so none are added meanwhile). */
  async lockForOrder(tx: Tx, orderId: string): Promise<LockedCards> {
    const rows = (await tx.query(
      `SELECT id FROM vouchers WHERE id IN (SELECT voucher_id FROM loyalty_pending_points WHERE order_id = $1 AND status = 'PENDING')
       ORDER BY id FOR NO KEY UPDATE`,
      [orderId],
    )) as { id: string }[];
    return new LockedCards(tx, rows.map((row) => row.id));
  }

  /** Up to `limit` cards of a campaign, in no particular order (a forced deletion's next batch). */
  async idsOfCampaign(tx: Tx, campaignId: string, limit: number): Promise<string[]> {
    const rows = (await tx.query('SELECT id FROM vouchers WHERE campaign_id = $1 LIMIT $2', [campaignId, limit])) as { id: string }[];
    return rows.map((row) => row.id);
  }

  /**
   * Deletes locked cards whose history is already deleted (a forced campaign deletion's batch: the cascade
   * to their ledger, buckets and entries finds nothing left); the members that held them.
   */
  async deleteLocked(locked: LockedCards): Promise<{ deleted: number; memberIds: string[] }> {
    if (!locked.cardIds.length) return { deleted: 0, memberIds: [] };
    const [rows] = (await locked.tx.query('DELETE FROM vouchers WHERE id = ANY($1::text[]) RETURNING member_id', [locked.cardIds])) as [{ member_id: string | null }[], number];
    return { deleted: rows.length, memberIds: [...new Set(rows.map((row) => row.member_id).filter((id): id is string => id !== null))] };
  }

  /** Locks the cards that no other transaction holds, in id order, without waiting; the ones locked. */
  async lockAvailable(tx: Tx, cardIds: Iterable<string>): Promise<LockedCards> {
    const ids = [...new Set(cardIds)].sort();
    if (!ids.length) return new LockedCards(tx, []);
    const rows = (await tx.query('SELECT id FROM vouchers WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE SKIP LOCKED', [ids])) as { id: string }[];
    return new LockedCards(tx, rows.map((row) => row.id));
  }

  /** A locked card's point columns as they are now (the lock keeps them so until the transaction ends). */
  async current(locked: LockedCards, cardId: string): Promise<CardBalance> {
    locked.require([cardId]);
    const [row] = (await locked.tx.query('SELECT id, points, balance, pending_points FROM vouchers WHERE id = $1', [cardId])) as CardBalanceRow[];
    return { id: row.id, points: Number(row.points), balance: Number(row.balance), pendingPoints: Number(row.pending_points) };
  }

  /** Applies the deltas (several per card are summed) to locked cards; every touched card's point columns after. */
  async apply(locked: LockedCards, deltas: CardDelta[]): Promise<Map<string, CardBalance>> {
    const fields = ['points', 'pending', 'removed', 'added', 'canceled'] as const;
    const byCard = new Map<string, Record<(typeof fields)[number], number>>();
    for (const delta of deltas) {
      const sum = byCard.get(delta.cardId) ?? { points: 0, pending: 0, removed: 0, added: 0, canceled: 0 };
      for (const field of fields) sum[field] += delta[field] ?? 0;
      byCard.set(delta.cardId, sum);
    }
    const ids = [...byCard.keys()].sort();
    if (!ids.length) return new Map();
    locked.require(ids);
    const rows = await runPrepared<[CardBalanceRow[], number]>(locked.tx, APPLY, [ids, ...fields.map((field) => ids.map((id) => byCard.get(id)?.[field] ?? 0))]);
    return new Map(rows[0].map((row) => [row.id, { id: row.id, points: Number(row.points), balance: Number(row.balance), pendingPoints: Number(row.pending_points) }]));
  }
}

/**
 * Proof that a transaction holds the locks of these cards (made only by `CardRepository`'s lock methods).
 * Repositories that write rows referencing cards, or change their point columns, take it instead of a
 * bare `Tx` and call `require` with the cards they write for.
 */
export class LockedCards {
  private readonly ids: ReadonlySet<string>;

  constructor(
    readonly tx: Tx,
    ids: string[],
  ) {
    this.ids = new Set(ids);
  }

  get cardIds(): string[] {
    return [...this.ids];
  }

  has(cardId: string): boolean {
    return this.ids.has(cardId);
  }

  /** Throws when a card is written for without its lock: a programming error, never a client's. */
  require(cardIds: Iterable<string>): void {
    for (const id of cardIds) if (!this.ids.has(id)) throw new Error(`card ${id} is written for without its lock (CardRepository.lock first)`);
  }
}
