import { Injectable, Logger } from '@nestjs/common';
import { JobQueueService } from '../../queue/job-queue.service.js';
import { JobName } from '../../queue/queue.definitions.js';
import type { DeliveryRef } from './webhook-delivery.repository.js';

/**
 * Hands deliveries to the queue after their rows are committed (job id = delivery id, payload = ids). If
 * Redis refuses, the rows stay PENDING and due, and the webhook sweep enqueues them.
 */
@Injectable()
export class DeliveryJobs {
  private readonly logger = new Logger('Webhooks');

  constructor(private readonly jobs: JobQueueService) {}

  async enqueue(deliveries: DeliveryRef[]): Promise<void> {
    if (!deliveries.length) return;
    try {
      await this.jobs.enqueueMany(JobName.DeliverWebhook, deliveries.map((d) => ({ data: { deliveryId: d.id, distributionId: d.distributionId }, jobId: d.id })));
    } catch (error) {
      this.logger.warn({ err: error, deliveries: deliveries.length }, 'could not enqueue webhook deliveries; the sweep will');
    }
  }

  /** For deliveries whose job may be finished or lost: a finished job with the id is replaced. */
  async ensure(deliveries: DeliveryRef[]): Promise<void> {
    try {
      for (const d of deliveries) await this.jobs.ensure(JobName.DeliverWebhook, { deliveryId: d.id, distributionId: d.distributionId }, d.id);
    } catch (error) {
      this.logger.warn({ err: error, deliveries: deliveries.length }, 'could not enqueue webhook deliveries; the sweep will');
    }
  }
}
