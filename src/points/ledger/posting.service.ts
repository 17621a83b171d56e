import { Injectable } from '@nestjs/common';
import { timeId } from '../../common/ids.js';
import { type CardBalance, type CardDelta, CardRepository, type LockedCards } from '../../cards/card.repository.js';
import { type BucketExpiry, type BucketPoints, BucketRepository } from '../buckets/bucket.repository.js';
import { balanceDetails, LedgerRepository, type NewTransaction } from './ledger.repository.js';
import type { TransactionDetails, TransactionType } from './voucher-transaction.entity.js';

/** The kinds of point movement, each a ledger row type and a change of the card's columns (KINDS). */
export type MovementKind = 'ACCRUAL' | 'ADDITION' | 'REMOVAL' | 'REDEMPTION' | 'REFUND';

/** The card a movement is posted to; its ledger row names the card's project and campaign. */
export interface PostingCard {
  id: string;
  projectId: string;
  campaignId: string;
}

/** What a movement's ledger row says besides its type, its points and the card's balance. */
export interface MovementRow {
  /** The row's id (`vtx_…`); made when not given. */
  id?: string;
  orderId?: string | null;
  /** The caller's own id of a change made by hand (`source_id`). */
  sourceId?: string | null;
  /** `details` after `balance`, in the order given (`reason` is the row's `reason`). */
  details?: Omit<TransactionDetails, 'balance'>;
}

interface MovementBase {
  card: PostingCard;
  /** How many points move (a whole number ≥ 1); the kind says which way. */
  points: number;
  row?: MovementRow;
}

/**
 * One point movement: credits (ACCRUAL, ADDITION) go to the card's bucket of the day their `expiry` gives;
 * debits (REMOVAL, REDEMPTION) drain the card's buckets soonest-expiring first, refused past the balance; a
 * REFUND gives a REDEMPTION's points back to exactly the buckets it drained (`buckets`, as the posting of the
 * REDEMPTION returned them).
 */
export type Movement =
  | (MovementBase & { kind: 'ACCRUAL' | 'ADDITION'; expiry: BucketExpiry })
  | (MovementBase & { kind: 'REMOVAL' | 'REDEMPTION' })
  | (MovementBase & { kind: 'REFUND'; buckets: BucketPoints[] });

/**
 * Each kind's ledger row type, the sign of its points, and what it adds to the card's columns (CardDelta;
 * the balance follows from them: CardRepository's `cardDeltasSql`). `points` (the lifetime total) grows
 * only with credits; a REFUND nets out its REDEMPTION in `redeemed_points` and `redeemed_quantity`, so the
 * card's CHECK (balance = points − expired − subtracted − redeemed ≥ 0) holds after both.
 */
const KINDS: Record<MovementKind, { type: TransactionType; sign: 1 | -1; delta: (points: number) => Omit<CardDelta, 'cardId'> }> = {
  ACCRUAL: { type: 'POINTS_ACCRUAL', sign: 1, delta: (points) => ({ points }) },
  ADDITION: { type: 'POINTS_ADDITION', sign: 1, delta: (points) => ({ points, added: points }) },
  REMOVAL: { type: 'POINTS_REMOVAL', sign: -1, delta: (points) => ({ removed: points }) },
  REDEMPTION: { type: 'POINTS_REDEMPTION', sign: -1, delta: (points) => ({ redeemed: points, redemptions: 1 }) },
  REFUND: { type: 'POINTS_REFUND', sign: 1, delta: (points) => ({ redeemed: -points, redemptions: -1 }) },
};

/** A movement as posted. */
export interface PostedMovement {
  movement: Movement;
  /** Its ledger row, as written. */
  transaction: NewTransaction & { createdAt: Date };
  /** A debit's buckets, soonest-expiring first, and how many points each gave (what its REFUND gives back); a refund's, as given; else none. */
  buckets: BucketPoints[];
}

export interface Posting {
  /** The movements in the order given. */
  movements: PostedMovement[];
  /** Every card the posting (and `alongside`) changed, its point columns after it all. */
  cards: Map<string, CardBalance>;
}

/** A debit past the card's balance: refused before anything was written. */
export class PointsExceeded extends Error {
  constructor(
    readonly cardId: string,
    /** The points the debit asked for. */
    readonly points: number,
    /** The card's balance it found (after the movements before it in the posting). */
    readonly balance: number,
  ) {
    super(`card ${cardId}: ${points} points asked, ${balance} in its balance`);
  }
}

/** A refund to a bucket that is no longer ACTIVE (it expired since): refused before anything was written. */
export class RefundNotRestorable extends Error {
  constructor(readonly cardIds: string[]) {
    super(`cards ${cardIds.join(', ')}: a bucket to refund is no longer ACTIVE`);
  }
}

function isCredit(movement: Movement): movement is Extract<Movement, { kind: 'ACCRUAL' | 'ADDITION' }> {
  return movement.kind === 'ACCRUAL' || movement.kind === 'ADDITION';
}

function isDebit(movement: Movement): movement is Extract<Movement, { kind: 'REMOVAL' | 'REDEMPTION' }> {
  return movement.kind === 'REMOVAL' || movement.kind === 'REDEMPTION';
}

/** What a delta does to the balance (the arithmetic of `cardDeltasSql`). */
function balanceChange(delta: Omit<CardDelta, 'cardId'>): number {
  return (delta.points ?? 0) - (delta.removed ?? 0) - (delta.expired ?? 0) - (delta.redeemed ?? 0);
}

/**
 * The one posting path of point movements (docs/architecture.md, "How the engine locks"): in the caller's
 * transaction, its cards locked (`LockedCards`), one call checks the debits against the balances, gives
 * refunds back to their buckets, applies every card's deltas in one statement (CardRepository.apply, with
 * the caller's other changes of the same cards: `alongside`), writes the ledger rows in one statement (each
 * row's `details.balance` the card right after it: `balanceDetails`), credits the buckets of the day in one
 * statement, drains the debits' buckets soonest-expiring first, and refreshes the cards' next expiration
 * once. A refused posting (PointsExceeded, RefundNotRestorable) throws before it writes anything.
 *
 * Events are the caller's (each path has its own), recorded after the posting: they show the cards as it left
 * them. The set-based paths (an activation batch, an expiry chunk) write the same rows in one SQL statement
 * each, with the owners' pieces (`cardDeltasSql`, `ledgerInsertSql`, `balanceJsonSql`, `bucketCreditSql`,
 * `nextExpirationSql`); the initial-points trigger spells its rows out itself.
 */
@Injectable()
export class PointsPosting {
  constructor(
    private readonly cards: CardRepository,
    private readonly ledger: LedgerRepository,
    private readonly buckets: BucketRepository,
  ) {}

  /**
   * Posts `movements` in their order (the ledger's order; several on one card each show the balance right after
   * it). `alongside`: other changes of these cards in this transaction (an order's pending entries), made by the
   * same UPDATE, before the movements. `at`: the rows' `created_at` (now by default). `unchangedSinceLock`: the
   * caller changed none of these cards since `CardRepository.lock`, so the debits are checked against the balances
   * the lock read (`LockedCards.atLock`), not read again.
   */
  async post(locked: LockedCards, movements: Movement[], options: { alongside?: CardDelta[]; at?: Date; unchangedSinceLock?: boolean } = {}): Promise<Posting> {
    const alongside = options.alongside ?? [];
    for (const movement of movements) {
      if (!Number.isSafeInteger(movement.points) || movement.points < 1) throw new Error(`a movement moves a whole number of points, at least 1 (${movement.points})`);
      if (movement.kind === 'REFUND' && movement.buckets.reduce((sum, b) => sum + b.points, 0) !== movement.points) throw new Error('a refund gives back exactly its buckets\' points');
    }
    locked.require([...movements.map((m) => m.card.id), ...alongside.map((d) => d.cardId)]);

    await this.checkDebits(locked, movements, alongside, options.unchangedSinceLock ?? false);
    const refunds = movements.flatMap((m) => (m.kind === 'REFUND' ? m.buckets.map((b) => ({ cardId: m.card.id, bucketId: b.id, points: b.points })) : []));
    const refunded = await this.buckets.restore(locked, refunds);
    if (refunded === null) throw new RefundNotRestorable([...new Set(refunds.map((r) => r.cardId))]);

    const deltas = movements.map((m) => ({ cardId: m.card.id, ...KINDS[m.kind].delta(m.points) }));
    const cards = await this.cards.apply(locked, [...alongside, ...deltas]);
    const at = options.at ?? new Date();
    const rows = this.rows(movements, deltas, cards);
    await this.ledger.insert(locked, rows, at);

    const credits = movements.filter(isCredit);
    const dated = await this.buckets.credit(
      locked,
      credits.map((m) => ({ projectId: m.card.projectId, cardId: m.card.id, campaignId: m.card.campaignId, points: m.points, expiry: m.expiry })),
    );
    const drained = new Map<Movement, BucketPoints[]>();
    for (const movement of movements.filter(isDebit)) drained.set(movement, await this.buckets.drain(locked, movement.card.id, movement.points));
    await this.buckets.refreshNext(locked, [...dated, ...refunded, ...[...drained.keys()].map((m) => m.card.id)]);

    return {
      movements: movements.map((movement, i) => ({
        movement,
        transaction: { ...rows[i], createdAt: at },
        buckets: movement.kind === 'REFUND' ? movement.buckets : (drained.get(movement) ?? []),
      })),
      cards,
    };
  }

  /** Every debit fits the balance it finds (the card's now, after `alongside` and the movements before it); else PointsExceeded. */
  private async checkDebits(locked: LockedCards, movements: Movement[], alongside: CardDelta[], unchangedSinceLock: boolean): Promise<void> {
    const debited = [...new Set(movements.filter(isDebit).map((m) => m.card.id))];
    if (!debited.length) return;
    const current = unchangedSinceLock && debited.every((id) => locked.atLock.has(id)) ? locked.atLock : await this.cards.current(locked, debited);
    const balances = new Map(debited.map((id) => [id, current.get(id)?.balance ?? 0]));
    for (const delta of alongside) if (balances.has(delta.cardId)) balances.set(delta.cardId, (balances.get(delta.cardId) ?? 0) + balanceChange(delta));
    for (const movement of movements) {
      const balance = balances.get(movement.card.id);
      if (balance === undefined) continue;
      const after = balance + KINDS[movement.kind].sign * movement.points;
      if (after < 0) throw new PointsExceeded(movement.card.id, movement.points, balance);
      balances.set(movement.card.id, after);
    }
  }

  /** One ledger row per movement, each showing its card right after it: the card after the posting, less the movements after it. */
  private rows(movements: Movement[], deltas: CardDelta[], after: Map<string, CardBalance>): NewTransaction[] {
    const later = new Map<string, { total: number; balance: number }>();
    // Made in the movements' order, before the walk back below: the ids grow with the rows' order, as they are inserted.
    const ids = movements.map((m) => m.row?.id ?? timeId('vtx_'));
    const rows: NewTransaction[] = new Array(movements.length);
    for (let i = movements.length - 1; i >= 0; i -= 1) {
      const { card, kind, points, row } = movements[i];
      const end = after.get(card.id);
      if (!end) throw new Error(`card ${card.id} was not changed`);
      const moved = later.get(card.id) ?? { total: 0, balance: 0 };
      const total = end.points - moved.total;
      const balance = end.balance - moved.balance;
      later.set(card.id, { total: moved.total + (deltas[i].points ?? 0), balance: moved.balance + balanceChange(deltas[i]) });
      const signed = KINDS[kind].sign * points;
      rows[i] = {
        id: ids[i],
        projectId: card.projectId,
        voucherId: card.id,
        campaignId: card.campaignId,
        type: KINDS[kind].type,
        points: signed,
        balanceAfter: balance,
        orderId: row?.orderId ?? null,
        pendingPointsId: null,
        sourceId: row?.sourceId ?? null,
        details: { balance: balanceDetails(card.id, total, signed, balance), ...row?.details },
      };
    }
    return rows;
  }
}
