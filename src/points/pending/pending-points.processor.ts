import { Processor, WorkerHost } from '@nestjs/bullmq';
import type { Job } from 'bullmq';
import { JobName, type JobPayloads, QueueName } from '../../queue/queue.definitions.js';
import { ActivationBatcher } from './activation-batcher.js';

/**
 * Jobs handed out at once by the queue: the batcher turns them into few transactions, so this is where the
 * activation throughput is set (the pool has 10 connections; at most two batches use them at a time).
 */
export const ACTIVATION_CONCURRENCY = 50;

/** The delayed activation job of each pending entry (job id = entry id), run at `activates_at`. */
@Processor(QueueName.PendingPoints, { concurrency: ACTIVATION_CONCURRENCY })
export class PendingPointsProcessor extends WorkerHost {
  constructor(private readonly batcher: ActivationBatcher) {
    super();
  }

  async process(job: Job): Promise<void> {
    switch (job.name) {
      case JobName.ActivatePendingPoints: {
        const { pendingPointsId } = job.data as JobPayloads[typeof JobName.ActivatePendingPoints];
        // Activated by this job, by another worker, by hand or already canceled: either way, done.
        await this.batcher.submit(pendingPointsId);
        return;
      }
      default:
        throw new Error(`Queue ${QueueName.PendingPoints} has no handler for job ${job.name}`);
    }
  }
}
