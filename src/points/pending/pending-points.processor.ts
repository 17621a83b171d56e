import { internalCause } from '../../events/recording/event-recording.js';
import { JobQueueService } from '../../queue/job-queue.service.js';
import { JobName, QueueName } from '../../queue/queue.definitions.js';
import { type JobHandlers, QueueProcessor, QueueWorker } from '../../queue/queue-processor.js';
import { ActivationService } from './activation.service.js';

/** Due entries one activation transaction takes. */
export const ACTIVATION_BATCH = 2_500;

/**
 * Cohort jobs a worker runs at once: each runs one transaction at a time (the pool has 10 connections; the
 * rest stay free for the sweeps and webhooks). Two workers give a large cohort its two lanes.
 */
export const ACTIVATION_CONCURRENCY = 2;

/**
 * The delayed job of each due-moment cohort (activation-cohorts.ts), run at the end of its window: it
 * activates every entry due by then, in set-based batches; a cohort of more than one batch starts a second
 * lane. An entry activated by hand, by the sweep or by the other lane is simply not found again.
 */
@QueueWorker(QueueName.PendingPoints, { concurrency: ACTIVATION_CONCURRENCY })
export class PendingPointsProcessor extends QueueProcessor<typeof QueueName.PendingPoints> {
  constructor(
    private readonly activation: ActivationService,
    private readonly jobs: JobQueueService,
  ) {
    super();
  }

  protected readonly handlers: JobHandlers<typeof QueueName.PendingPoints> = {
    [JobName.ActivateDuePendingPoints]: async (job) => {
      const { projectId, dueAt, lane = 0 } = job.data;
      const secondLane = lane === 0 && job.id ? () => this.jobs.enqueue(JobName.ActivateDuePendingPoints, { projectId, dueAt, lane: 1 }, { jobId: `${job.id}_1` }) : undefined;
      await this.activation.drainDue(ACTIVATION_BATCH, internalCause(), secondLane);
    },
    // A job queued per entry by an earlier version: its entry, and whatever else is due.
    [JobName.ActivatePendingPoints]: async (job) => {
      await this.activation.activate({ ids: [job.data.pendingPointsId], extraDue: ACTIVATION_BATCH, operation: 'AUTOMATIC', cause: internalCause() });
    },
  };
}
