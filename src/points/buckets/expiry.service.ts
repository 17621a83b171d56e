import { Injectable, Logger } from '@nestjs/common';
import { dataError } from '../../common/errors/infrastructure-errors.js';
import { AppConfig } from '../../config/app-config.js';
import { TransactionRunner } from '../../database/transaction-runner.js';
import type { EventCause } from '../../events/recording/event-recording.js';
import { CardRepository, type LockedCards } from '../../cards/card.repository.js';
import { type ExpiryResult, ExpiryRepository, type SetAsideCard } from './expiry.repository.js';

/** Due buckets one expiry statement expires at most, all cards together (a card's chunk always goes in whole). */
export const POINTS_EXPIRY_STATEMENT_BUCKETS = 5_000;

/** What one batch did: its statement(s), how many due buckets it found, the cards it set aside. */
export interface ExpiryBatch extends ExpiryResult {
  candidates: number;
  setAside: { cardId: string; error: string }[];
}

/** A statement past its timeout (57014). */
function timedOut(error: unknown): string | null {
  const driverError = (error as { driverError?: { code?: unknown; message?: unknown } } | null)?.driverError ?? (error as { code?: unknown; message?: unknown } | null);
  return driverError?.code === '57014' ? String(driverError.message) : null;
}

/** A failure that belongs to the cards of the statement rather than to the database: a value refused, a statement past its timeout. */
function cardFailure(error: unknown): string | null {
  return dataError(error)?.message ?? timedOut(error);
}

/**
 * Point expiry (the worker's sweep): buckets whose last day is over leave their cards' balances. One
 * transaction per batch takes the cards of due buckets that no other transaction holds (SKIP LOCKED, in id
 * order: the lock discipline of every card write), then expires a chunk of each one's due buckets in one
 * statement (POINTS_EXPIRY_CHUNK_BUCKETS per card, POINTS_EXPIRY_STATEMENT_BUCKETS in all). The expiry is a
 * conditional update of ACTIVE buckets, so two workers, a sweep that runs again after a restart, or a removal
 * racing it take each bucket's points once; nothing of it lives in Redis.
 *
 * A statement that fails for its cards (a statement past its timeout, a value PostgreSQL refuses) is undone to
 * a savepoint and run card by card, as activation does with its entries: the cards that still fail alone are
 * set aside (`vouchers.expiry_error`), out of the sweep until POINTS_EXPIRY_RETRY_MS has passed or an operator
 * releases them (`cli.js expiry-set-aside`), and the others' buckets expire. So one card can cost the sweep two
 * statement timeouts now and then, never its progress for everyone else.
 */
@Injectable()
export class ExpiryService {
  private readonly logger = new Logger(ExpiryService.name);
  private readonly bounds: { chunk: number; budget: number };
  private readonly retryMs: number;
  /** How long a batch goes on card by card after its statement failed: one statement timeout (none: no limit). */
  private readonly isolationMs: number;

  constructor(
    config: AppConfig,
    private readonly transactions: TransactionRunner,
    private readonly cards: CardRepository,
    private readonly expiry: ExpiryRepository,
  ) {
    this.bounds = { chunk: config.pointsExpiry.chunkBuckets, budget: POINTS_EXPIRY_STATEMENT_BUCKETS };
    this.retryMs = config.pointsExpiry.retryMs;
    this.isolationMs = config.databaseQueryTimeoutMs > 0 ? config.databaseQueryTimeoutMs : Number.POSITIVE_INFINITY;
  }

  /** One batch: the cards of up to `batchSize` due buckets, a chunk of each. */
  async expireBatch(batchSize: number, cause: EventCause): Promise<ExpiryBatch> {
    const batch = await this.transactions.run(async (tx) => {
      const due = await this.expiry.dueCards(tx, batchSize);
      const locked = await this.cards.lockAvailable(tx, due.cardIds);
      return { ...(await this.expireOrSetAside(locked, cause)), candidates: due.buckets };
    });
    if (batch.setAside.length) this.logger.warn({ cards: batch.setAside }, 'point expiry failed for these cards even alone: set aside (vouchers.expiry_error)');
    return batch;
  }

  /**
   * Batches until one finds fewer due buckets than it could take and left no card with more to expire, or
   * expires nothing (every card it found is held by another transaction, which will be done with it by the
   * next sweep, or failed: a database too slow for any card waits for the next sweep rather than have every
   * card set aside in turn); first, the cards set aside for POINTS_EXPIRY_RETRY_MS are released. Returns the
   * buckets expired.
   */
  async sweep(batchSize: number, cause: EventCause): Promise<number> {
    if (this.retryMs > 0) {
      const released = await this.cards.releaseExpiryAside({ olderThanMs: this.retryMs });
      if (released.length) this.logger.log({ cards: released }, 'cards set aside by the point expiry are tried again');
    }
    let total = 0;
    for (;;) {
      const batch = await this.expireBatch(batchSize, cause);
      total += batch.buckets;
      if (batch.points) this.logger.debug({ buckets: batch.buckets, cards: batch.cards, points: batch.points }, 'points expired');
      if (batch.buckets === 0) return total;
      if (batch.candidates < batchSize && !batch.more) return total;
    }
  }

  /** The cards set aside (of one project, or all), for an operator. */
  setAsideCards(projectId: string | null, limit = 1_000): Promise<SetAsideCard[]> {
    return this.expiry.setAsideCards(projectId, limit);
  }

  /** Releases set-aside cards (the given ones, or every one of a project or of all): the next sweep tries them. The ids released. */
  release(filter: { cardIds?: string[]; projectId?: string }): Promise<string[]> {
    return this.cards.releaseExpiryAside(filter);
  }

  /**
   * The batch's statement; if it fails for its cards, each card alone, and the ones that still fail are set
   * aside. Card by card goes on for one statement timeout at most (the failed statement took one already): it
   * stops after a card that timed out, or once as long has passed;
   * the cards not reached are left for the next batch, without the ones set aside. So a poison card costs a
   * batch two timeouts, and a database where every statement times out costs it two and sets one card aside,
   * not one timeout per card of the batch.
   */
  private async expireOrSetAside(locked: LockedCards, cause: EventCause): Promise<ExpiryResult & { setAside: ExpiryBatch['setAside'] }> {
    const tx = locked.tx;
    const ids = locked.cardIds.sort();
    let failure: string | null;
    try {
      return { ...(await this.transactions.savepoint(tx, () => this.expiry.expire(locked, ids, this.bounds, cause))), setAside: [] };
    } catch (error) {
      failure = cardFailure(error);
      if (failure === null) throw error;
    }
    const result: ExpiryResult = { buckets: 0, cards: 0, points: 0, more: false };
    const setAside: ExpiryBatch['setAside'] = [];
    // One card alone has failed alone already: no second statement timeout for it.
    if (ids.length === 1) setAside.push({ cardId: ids[0], error: failure });
    else {
      const started = performance.now();
      for (const id of ids) {
        if (performance.now() - started >= this.isolationMs) {
          result.more = true;
          break;
        }
        try {
          const one = await this.transactions.savepoint(tx, () => this.expiry.expire(locked, [id], this.bounds, cause));
          result.buckets += one.buckets;
          result.cards += one.cards;
          result.points += one.points;
          result.more ||= one.more;
        } catch (error) {
          const alone = cardFailure(error);
          if (alone === null) throw error;
          setAside.push({ cardId: id, error: alone });
          // That card took a whole statement timeout, the one card by card may spend: the rest waits for the next
          // batch. Not left to the clock above alone: PostgreSQL times a statement by its own clock, and in one CI
          // run (2026-11-29) this process measured less than the timeout across a card that had timed out.
          if (timedOut(error) !== null) {
            result.more = true;
            break;
          }
        }
      }
    }
    await this.cards.setExpiryAside(locked, setAside);
    return { ...result, setAside };
  }
}
