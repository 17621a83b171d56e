import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { prepared, runPrepared } from '../database/prepared.js';
import type { Tx } from '../database/transaction-runner.js';

/** The point columns a change reads back (CardBalance). */
const BALANCE_COLUMNS = 'points, balance, pending_points, redeemed_points, redeemed_quantity, updated_at';

/** Cards locked in id order, with their point columns as the lock found them (a locking read sees the latest committed row). */
export const LOCK = prepared('cards_lock', `SELECT id, ${BALANCE_COLUMNS} FROM vouchers WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE`);

/**
 * A change of cards' point columns, one row per card (`d`): what it adds to each counter. `points` reach the
 * balance and the lifetime total; `removed` (by hand), `expired` and `redeemed` leave the balance, each
 * counted in its own column (`subtracted_points`, `expired_points`, `redeemed_points`: a refund is a negative
 * `redeemed`); `redemptions` counts redemptions (`redeemed_quantity`, a rollback −1); `pending` changes the
 * pending points, of which `activated` were activated and `canceled` canceled; `added` of `points` were added
 * by hand. The balance column follows from the others, so that the card's CHECK
 * (`CHK_vouchers_balance`: balance = points − expired_points − subtracted_points − redeemed_points ≥ 0) holds
 * after any delta.
 */
export const DELTA_COLUMNS = ['points', 'pending', 'removed', 'added', 'canceled', 'activated', 'expired', 'redeemed', 'redemptions'] as const;
export type DeltaColumn = (typeof DELTA_COLUMNS)[number];

/** A delta row's columns from SQL expressions, in DELTA_COLUMNS' order, 0 for those not given: `deltaColumnsSql({ expired: 'a.points' })`. */
export function deltaColumnsSql(values: Partial<Record<DeltaColumn, string>>): string {
  return DELTA_COLUMNS.map((column) => `(${values[column] ?? '0'})::bigint AS ${column}`).join(', ');
}

/**
 * The one UPDATE of cards' point columns, for `CardRepository.apply` and for the statements that change cards
 * in the database (activation, expiry): `rows` is a relation named `d` with the card's `id` and every delta
 * column (`deltaColumnsSql`); with `nextExpiration`, also `next_day` and `next_points`, the card's next
 * expiration after the change. The caller adds its RETURNING.
 */
export function cardDeltasSql(rows: string, options: { nextExpiration?: boolean } = {}): string {
  const next = options.nextExpiration ? ', next_expiration_date = d.next_day, next_expiration_points = d.next_points' : '';
  return `UPDATE vouchers v SET points = v.points + d.points, balance = v.balance + d.points - d.removed - d.expired - d.redeemed,
     pending_points = v.pending_points + d.pending, subtracted_points = v.subtracted_points + d.removed, expired_points = v.expired_points + d.expired,
     redeemed_points = v.redeemed_points + d.redeemed, redeemed_quantity = v.redeemed_quantity + d.redemptions, added_points = v.added_points + d.added,
     pending_activated_points = v.pending_activated_points + d.activated, pending_canceled_points = v.pending_canceled_points + d.canceled,
     updated_at = now()${next}
   FROM ${rows}
   WHERE v.id = d.id`;
}

/**
 * A card's next expiration set from `rows`, a relation named `n` with the card's `id`, `day` and `points`
 * (computed from its buckets by their owner: BucketRepository's REFRESH_NEXT); only cards whose values differ
 * are written.
 */
export function nextExpirationSql(rows: string): string {
  return `UPDATE vouchers v SET next_expiration_date = n.day, next_expiration_points = n.points
   FROM ${rows}
   WHERE v.id = n.id AND (v.next_expiration_date IS DISTINCT FROM n.day OR v.next_expiration_points <> n.points)`;
}

export const APPLY = prepared(
  'cards_apply',
  `${cardDeltasSql(`unnest($1::text[], ${DELTA_COLUMNS.map((_, i) => `$${i + 2}::bigint[]`).join(', ')}) AS d(id, ${DELTA_COLUMNS.join(', ')})`)}
   RETURNING v.id, ${BALANCE_COLUMNS.split(', ').map((column) => `v.${column}`).join(', ')}`,
);

/** Locked cards' point columns as they are now (`$1`: their ids). */
export const CURRENT = prepared('cards_current', `SELECT id, ${BALANCE_COLUMNS} FROM vouchers WHERE id = ANY($1::text[])`);

/** The cards set aside by the point expiry for `$3` ms or longer (or the given ones), released in id order without waiting for a card another transaction holds. */
const RELEASE_EXPIRY = `UPDATE vouchers v SET expiry_error = NULL, expiry_set_aside_at = NULL
   WHERE v.id IN (SELECT id FROM vouchers WHERE expiry_error IS NOT NULL AND ($1::text[] IS NULL OR id = ANY($1::text[])) AND ($2::text IS NULL OR project_id = $2)
                    AND expiry_set_aside_at <= now() - make_interval(secs => $3::float8 / 1000)
                  ORDER BY id FOR NO KEY UPDATE SKIP LOCKED)
   RETURNING v.id`;

/** The point columns of a card after a change. */
export interface CardBalance {
  id: string;
  points: number;
  balance: number;
  pendingPoints: number;
  /** The card's redemption counters (`redemption.redeemed_points`, `redeemed_quantity`). */
  redeemedPoints: number;
  redeemedQuantity: number;
  updatedAt: Date | null;
}

/** A change of one card's point columns (DELTA_COLUMNS says what each does); several for one card are summed. */
export type CardDelta = { cardId: string } & Partial<Record<DeltaColumn, number>>;

/** bigint columns: node-postgres hands them over as strings. */
interface CardBalanceRow {
  id: string;
  points: string;
  balance: string;
  pending_points: string;
  redeemed_points: string;
  redeemed_quantity: number;
  updated_at: Date | null;
}

function balanceOf(row: CardBalanceRow): CardBalance {
  return {
    id: row.id,
    points: Number(row.points),
    balance: Number(row.balance),
    pendingPoints: Number(row.pending_points),
    redeemedPoints: Number(row.redeemed_points),
    redeemedQuantity: Number(row.redeemed_quantity),
    updatedAt: row.updated_at,
  };
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
    const rows = await runPrepared<CardBalanceRow[]>(tx, LOCK, [ids]);
    return new LockedCards(tx, rows.map((row) => row.id), new Map(rows.map((row) => [row.id, balanceOf(row)])));
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

  /** Locked cards' point columns as they are now (the lock keeps them so until the transaction ends). */
  async current(locked: LockedCards, cardIds: string[]): Promise<Map<string, CardBalance>> {
    locked.require(cardIds);
    const rows = await runPrepared<CardBalanceRow[]>(locked.tx, CURRENT, [cardIds]);
    return new Map(rows.map((row) => [row.id, balanceOf(row)]));
  }

  /**
   * Sets locked cards aside with the error their point expiry failed with (`expiry_error`): the expiry leaves
   * them out until they are released (docs/points-expiry.md).
   */
  async setExpiryAside(locked: LockedCards, failures: { cardId: string; error: string }[]): Promise<void> {
    if (!failures.length) return;
    locked.require(failures.map((f) => f.cardId));
    await locked.tx.query(
      `UPDATE vouchers v SET expiry_error = f.error, expiry_set_aside_at = now() FROM unnest($1::text[], $2::text[]) AS f(id, error) WHERE v.id = f.id`,
      [failures.map((f) => f.cardId), failures.map((f) => f.error)],
    );
  }

  /**
   * Releases cards the point expiry set aside: those set aside at least `olderThanMs` ago, of one project or all,
   * or only the given ones. A card another transaction holds is left (it is released at the next call). The ids
   * released.
   */
  async releaseExpiryAside(filter: { cardIds?: string[]; projectId?: string; olderThanMs?: number }): Promise<string[]> {
    const rows = (await this.dataSource.query(RELEASE_EXPIRY, [filter.cardIds ?? null, filter.projectId ?? null, filter.olderThanMs ?? 0])) as [{ id: string }[], number];
    return rows[0].map((row) => row.id).sort();
  }

  /** Applies the deltas (several per card are summed) to locked cards; every touched card's point columns after. */
  async apply(locked: LockedCards, deltas: CardDelta[]): Promise<Map<string, CardBalance>> {
    const byCard = new Map<string, Record<DeltaColumn, number>>();
    for (const delta of deltas) {
      const sum = byCard.get(delta.cardId) ?? (Object.fromEntries(DELTA_COLUMNS.map((column) => [column, 0])) as Record<DeltaColumn, number>);
      for (const column of DELTA_COLUMNS) sum[column] += delta[column] ?? 0;
      byCard.set(delta.cardId, sum);
    }
    const ids = [...byCard.keys()].sort();
    if (!ids.length) return new Map();
    locked.require(ids);
    const rows = await runPrepared<[CardBalanceRow[], number]>(locked.tx, APPLY, [ids, ...DELTA_COLUMNS.map((column) => ids.map((id) => byCard.get(id)?.[column] ?? 0))]);
    return new Map(rows[0].map((row) => [row.id, balanceOf(row)]));
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
    /**
     * The cards' point columns as `CardRepository.lock` read them (empty from the other locks): what a caller that
     * has changed none of them since may use instead of reading them again (PointsPosting's `unchangedSinceLock`).
     */
    readonly atLock: ReadonlyMap<string, CardBalance> = new Map(),
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
