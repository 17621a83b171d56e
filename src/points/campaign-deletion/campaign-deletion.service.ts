import { Injectable, Logger } from '@nestjs/common';
import { AsyncActionsService } from '../../async-actions/async-actions.service.js';
import { CampaignDeletionRepository, type DeletionTurn } from '../../campaigns/campaign-deletion.repository.js';
import { vouchers } from '../../campaigns/campaigns.service.js';
import { CardRepository } from '../../cards/card.repository.js';
import { TransactionRunner, type Tx } from '../../database/transaction-runner.js';
import { MembersService } from '../../members/members.service.js';
import { BucketRepository } from '../buckets/bucket.repository.js';
import { LedgerRepository } from '../ledger/ledger.repository.js';
import { PendingPointsRepository } from '../pending/pending-points.repository.js';

/** Cards one batch takes (and locks, in id order). */
export const DELETION_CARD_BATCH = 1_000;
/** Rows of each history table (entries, ledger, buckets) one batch deletes at most: a card's history is unbounded. */
export const DELETION_ROW_BATCH = 5_000;
/** How long a batch holds its campaign: far longer than a batch takes; a worker that died leaves it to others after that. */
const DELETION_LEASE_MS = 60_000;
/** After a batch that threw (a lock or statement timeout), the campaign waits this long; other deletions go on. */
const DELETION_RETRY_MS = 5_000;

/**
 * A forced campaign deletion (`DELETE /v1/loyalties/{id}?force=true`), in the worker (issue 36). The request
 * hid the campaign and recorded its async action IN_PROGRESS (CampaignsService.delete); here the campaign's
 * cards and their history go in bounded batches, each its own transaction, taken in turns between projects
 * (CampaignDeletionRepository.claim: one batch per turn):
 *
 * 1. up to DELETION_CARD_BATCH of its cards, locked first in id order (CardRepository.lock: the lock rule of
 *    every write on cards, so a balance change or an order on one of them waits, then finds it gone: 404);
 * 2. their pending entries, ledger rows and buckets, up to DELETION_ROW_BATCH rows of each table;
 * 3. when none is left, the cards themselves and the members that held them, and the campaign's count of
 *    cards left, which gives the action's progress;
 * 4. once no card is left, the campaign's row (its program, earning rules and any member left, by cascade),
 *    and the action DONE, in one transaction.
 *
 * The orders and their earning claims stay, as events do (the event log is history). A worker that dies
 * mid-deletion leaves a batch rolled back and a lease that runs out: the next sweep, in any worker, goes on.
 */
@Injectable()
export class CampaignDeletionService {
  private readonly logger = new Logger('CampaignDeletion');
  private stopping = false;

  constructor(
    private readonly deletions: CampaignDeletionRepository,
    private readonly cards: CardRepository,
    private readonly pending: PendingPointsRepository,
    private readonly ledger: LedgerRepository,
    private readonly buckets: BucketRepository,
    private readonly members: MembersService,
    private readonly actions: AsyncActionsService,
    private readonly transactions: TransactionRunner,
  ) {}

  /** The worker is closing: the run in progress ends after its current batch. */
  stop(): void {
    this.stopping = true;
  }

  /** Takes turns (a batch each) until no deletion is left that another worker does not hold; the batches run. */
  async drain(): Promise<number> {
    let batches = 0;
    while (!this.stopping) {
      const turn = await this.deletions.claim(DELETION_LEASE_MS);
      if (!turn) return batches;
      batches += 1;
      try {
        await this.transactions.run((tx) => this.batch(tx, turn));
      } catch (error) {
        this.logger.warn({ err: error, campaign_id: turn.id }, 'campaign deletion batch failed; retried later');
        await this.deletions.holdAfterFailure(turn.id, DELETION_RETRY_MS);
      }
    }
    return batches;
  }

  private async batch(tx: Tx, turn: DeletionTurn): Promise<void> {
    const ids = await this.cards.idsOfCampaign(tx, turn.id, DELETION_CARD_BATCH);
    if (!ids.length) {
      const finished = await this.deletions.finish(tx, turn.id);
      if (finished) {
        await this.actions.finish(tx, turn.actionId, { message: `Deleted ${vouchers(finished.cards)}.`, done_count: finished.cards });
        this.logger.log({ campaign_id: turn.id, project_id: turn.projectId, cards: finished.cards }, 'campaign deleted');
      } else {
        await this.deletions.batchDone(tx, turn.id, 0);
      }
      return;
    }
    const locked = await this.cards.lock(tx, ids);
    // The history first: every table's share within the bound; the cards only once none of it is left.
    let more = false;
    for (const history of [this.pending, this.ledger, this.buckets]) {
      if ((await history.deleteOfCards(locked, DELETION_ROW_BATCH)) >= DELETION_ROW_BATCH) more = true;
    }
    let deleted = 0;
    if (!more) {
      const gone = await this.cards.deleteLocked(locked);
      await this.members.deleteCardless(tx, gone.memberIds);
      deleted = gone.deleted;
    }
    const progress = await this.deletions.batchDone(tx, turn.id, deleted);
    if (progress.cards > 0) await this.actions.reportProgress(tx, turn.actionId, (100 * (progress.cards - progress.left)) / progress.cards);
  }
}
