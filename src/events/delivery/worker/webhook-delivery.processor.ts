import { DelayedError } from 'bullmq';
import { JobName, QueueName } from '../../../queue/queue.definitions.js';
import { type JobHandlers, QueueProcessor, QueueWorker } from '../../../queue/queue-processor.js';
import { DeliveryDispatcher } from './delivery-dispatcher.js';
import { WebhookDeliveryService } from './webhook-delivery.service.js';

/** Requests in flight at once per worker process (each distribution takes at most its share of them). */
export const WEBHOOK_CONCURRENCY = 100;

/**
 * The delivery jobs (job id = delivery id): a retry's next attempt, and the attempts the API asks for (first
 * attempts go through DeliveryDispatcher, without a job). An attempt that must be retried again moves the
 * same job to the delayed set until its next attempt.
 *
 * The jobs of a worker that died are taken back after 10–15 s instead of BullMQ's 30–60 s (a shorter lock,
 * renewed every 5 s while an attempt runs, and a stalled check every 5 s): a job run twice is harmless, as
 * the delivery's lease keeps a second attempt from starting while the first may still be sending.
 */
@QueueWorker(QueueName.Webhooks, { concurrency: WEBHOOK_CONCURRENCY, lockDuration: 10_000, stalledInterval: 5_000 })
export class WebhookDeliveryProcessor extends QueueProcessor<typeof QueueName.Webhooks> {
  constructor(
    private readonly delivery: WebhookDeliveryService,
    private readonly dispatcher: DeliveryDispatcher,
  ) {
    super();
  }

  protected readonly handlers: JobHandlers<typeof QueueName.Webhooks> = {
    [JobName.DeliverWebhook]: async (job, token) => {
      const { deliveryId, distributionId, projectId } = job.data;
      const { again, toDispatcher } = await this.delivery.attempt(deliveryId, distributionId, projectId);
      if (toDispatcher) this.dispatcher.wake();
      if (again && token) {
        await job.moveToDelayed(again.getTime(), token);
        throw new DelayedError();
      }
    },
  };
}
