import { Injectable, Logger } from '@nestjs/common';
import { TransactionRunner } from '../../../database/transaction-runner.js';
import { DeliveryDispatcher } from './delivery-dispatcher.js';
import { Rerun } from './rerun.js';
import { type PendingWork, type RecoverPosition, WebhookWorkRepository } from './webhook-work.repository.js';

/** Deliveries one batch reads (and changes or deletes) at most: one short transaction each. */
export const WORK_BATCH = 1_000;
/** Distributions with work read per round. */
const DISTRIBUTIONS_PER_ROUND = 100;

/**
 * The worker's side of recover, resume and delete (issue 26): the API only records them on the
 * distribution's row (constant time, no queue job per delivery) and notifies `loyalty_webhook_work`; this
 * carries them out in batches of WORK_BATCH deliveries, each its own transaction:
 * - a deleted distribution's deliveries (and attempts) are deleted, then its row;
 * - a recover makes the FAILED deliveries since its `since` PENDING and due (parked if the distribution is
 *   not ACTIVE);
 * - a resume makes the parked PENDING deliveries of an ACTIVE distribution due.
 * Deliveries made due are sent by the dispatchers, which the batch wakes (`NOTIFY loyalty_deliveries`).
 * It runs on the notification and from the webhook sweep, which also finishes work a worker stopped in
 * the middle of (the work stays recorded until done). Two workers may do the same work at once: every
 * batch re-checks the rows' state, so the result is the same.
 */
@Injectable()
export class WebhookHousekeeping {
  private readonly logger = new Logger('Webhooks');
  private readonly runs = new Rerun(
    () => this.drain(),
    (error) => this.logger.warn({ err: error }, 'webhook housekeeping failed; the webhook sweep will retry'),
  );

  constructor(
    private readonly transactions: TransactionRunner,
    private readonly work: WebhookWorkRepository,
    private readonly dispatcher: DeliveryDispatcher,
  ) {}

  async stop(): Promise<void> {
    await this.runs.stop();
  }

  /** Carries out the recorded work; a call during a run makes the run go round once more. */
  run(): Promise<void> {
    return this.runs.run();
  }

  private async drain(): Promise<void> {
    for (;;) {
      this.runs.pass();
      const pending = await this.work.pending(DISTRIBUTIONS_PER_ROUND);
      for (const work of pending) {
        if (this.runs.stopped) return;
        await this.carryOut(work);
      }
      if (pending.length < DISTRIBUTIONS_PER_ROUND || this.runs.stopped) return;
    }
  }

  private async carryOut(work: PendingWork): Promise<void> {
    if (work.deleted) return this.delete(work.id);
    if (work.recoverRequestedAt !== null && work.recoverSince !== null) {
      let before: RecoverPosition | null = null;
      for (;;) {
        const { changed, last }: { changed: number; last: RecoverPosition | null } = await this.work.recoverBatch(work.id, work.recoverSince, before, WORK_BATCH);
        if (changed) this.dispatcher.wake();
        if (last === null || this.runs.stopped) break;
        before = last;
      }
      if (!this.runs.stopped) await this.work.recoverDone(work.id, work.recoverRequestedAt);
    }
    if (work.resumeRequestedAt !== null) {
      let after: string | null = null;
      for (;;) {
        const { changed, last } = await this.work.resumeBatch(work.id, after, WORK_BATCH);
        if (changed) this.dispatcher.wake();
        if (last === null || this.runs.stopped) break;
        after = last;
      }
      if (!this.runs.stopped) await this.work.resumeDone(work.id, work.resumeRequestedAt);
    }
  }

  private async delete(distributionId: string): Promise<void> {
    for (;;) {
      if (this.runs.stopped) return;
      const deleted = await this.transactions.run((tx) => this.work.deleteBatch(tx, distributionId, WORK_BATCH));
      if (deleted < WORK_BATCH) break;
    }
    await this.work.deleteDistribution(distributionId);
  }
}
