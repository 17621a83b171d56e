import { Injectable, Logger } from '@nestjs/common';
import { TransactionRunner } from '../../database/transaction-runner.js';
import type { EventCause } from '../../events/recording/event-recording.js';
import { CardRepository } from '../../cards/card.repository.js';
import { type ExpiryResult, ExpiryRepository } from './expiry.repository.js';

/**
 * Point expiry (the worker's sweep): buckets whose last day is over leave their cards' balances. One
 * transaction per batch takes the cards of due buckets that no other transaction holds (SKIP LOCKED, in id
 * order: the lock discipline of every card write), then expires all their due buckets in one statement. The
 * expiry is a conditional update of ACTIVE buckets, so two workers, a sweep that runs again after a
 * restart, or a removal racing it take each bucket's points once; nothing of it lives in Redis.
 */
@Injectable()
export class ExpiryService {
  private readonly logger = new Logger(ExpiryService.name);

  constructor(
    private readonly transactions: TransactionRunner,
    private readonly cards: CardRepository,
    private readonly expiry: ExpiryRepository,
  ) {}

  /** One batch: the cards of up to `batchSize` due buckets. */
  async expireBatch(batchSize: number, cause: EventCause): Promise<ExpiryResult & { candidates: number }> {
    return this.transactions.run(async (tx) => {
      const due = await this.expiry.dueCards(tx, batchSize);
      const locked = await this.cards.lockAvailable(tx, due.cardIds);
      return { ...(await this.expiry.expire(locked, cause)), candidates: due.buckets };
    });
  }

  /**
   * Batches until one finds fewer due buckets than it could take, or expires none (every card it found is
   * held by another transaction, which will be done with it by the next sweep); returns the buckets expired.
   */
  async sweep(batchSize: number, cause: EventCause): Promise<number> {
    let total = 0;
    for (;;) {
      const batch = await this.expireBatch(batchSize, cause);
      total += batch.buckets;
      if (batch.points) this.logger.debug({ buckets: batch.buckets, cards: batch.cards, points: batch.points }, 'points expired');
      if (batch.candidates < batchSize || batch.buckets === 0) return total;
    }
  }
}
