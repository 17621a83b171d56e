import { JobName, QueueName } from '../../queue/queue.definitions.js';
import { type JobHandlers, QueueProcessor, QueueWorker } from '../../queue/queue-processor.js';
import { ActivationBatcher } from './activation-batcher.js';

/**
 * Jobs handed out at once by the queue: the batcher turns them into few transactions, so this is where the
 * activation throughput is set (the pool has 10 connections; at most two batches use them at a time).
 */
export const ACTIVATION_CONCURRENCY = 50;

/** The delayed activation job of each pending entry (job id = entry id), run at `activates_at`. */
@QueueWorker(QueueName.PendingPoints, { concurrency: ACTIVATION_CONCURRENCY })
export class PendingPointsProcessor extends QueueProcessor<typeof QueueName.PendingPoints> {
  constructor(private readonly batcher: ActivationBatcher) {
    super();
  }

  protected readonly handlers: JobHandlers<typeof QueueName.PendingPoints> = {
    // Activated by this job, by another worker, by hand or already canceled: either way, done.
    [JobName.ActivatePendingPoints]: async (job) => this.batcher.submit(job.data.pendingPointsId),
  };
}
