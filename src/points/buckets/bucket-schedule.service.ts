import { Injectable } from '@nestjs/common';
import { CardRepository } from '../../cards/card.repository.js';
import { TransactionRunner } from '../../database/transaction-runner.js';
import { BucketRepository } from './bucket.repository.js';

/** Cards whose buckets one transaction reschedules. */
const RESCHEDULE_CARDS = 500;

/**
 * After a project's time zone changed (`cli.js set-time-zone`): its dated ACTIVE buckets expire at 00:00 in
 * the new zone. Buckets are written under their card's lock like every other bucket write, so the change
 * goes card batch by card batch, each locked in id order first: it waits for a removal or an expiry of the
 * same card instead of racing it, and no transaction holds a large project's buckets at once.
 */
@Injectable()
export class BucketScheduleService {
  constructor(
    private readonly transactions: TransactionRunner,
    private readonly cards: CardRepository,
    private readonly buckets: BucketRepository,
  ) {}

  /** The number of buckets rescheduled. */
  async reschedule(projectId: string): Promise<number> {
    let total = 0;
    for (let after = ''; ; ) {
      const ids = await this.buckets.cardsWithDatedBuckets(projectId, after, RESCHEDULE_CARDS);
      if (!ids.length) return total;
      total += await this.transactions.run(async (tx) => this.buckets.reschedule(await this.cards.lock(tx, ids)));
      after = ids[ids.length - 1];
    }
  }
}
