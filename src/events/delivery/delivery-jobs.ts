import { Injectable, Logger } from '@nestjs/common';
import { JobQueueService } from '../../queue/job-queue.service.js';
import { JobName } from '../../queue/queue.definitions.js';
import type { DeliveryRef } from './delivery.types.js';

/**
 * Delivery jobs (job id = delivery id, payload = ids): a retry's delayed attempt, and the attempts the API
 * asks for one at a time (redeliver, test; recover and resume make rows due instead, which the dispatcher
 * claims: WebhookHousekeeping). If Redis refuses, the rows stay
 * PENDING and due, and the webhook sweep has the dispatcher claim them.
 */
@Injectable()
export class DeliveryJobs {
  private readonly logger = new Logger('Webhooks');

  constructor(private readonly jobs: JobQueueService) {}

  async enqueue(deliveries: DeliveryRef[]): Promise<void> {
    if (!deliveries.length) return;
    try {
      await this.jobs.enqueueMany(JobName.DeliverWebhook, deliveries.map((d) => ({ data: { deliveryId: d.id, distributionId: d.distributionId, projectId: d.projectId }, jobId: d.id })));
    } catch (error) {
      this.logger.warn({ err: error, deliveries: deliveries.length }, 'could not enqueue webhook deliveries; the sweep will');
    }
  }

  /**
   * The next attempt of deliveries the dispatcher tried, as a delayed job. If a job with the id is still
   * there, it stays (it finds the delivery not due, and waits until it is); if Redis refuses, the sweep finds
   * the delivery when it is due.
   */
  async retryAt(deliveries: DeliveryRef[], at: Date): Promise<void> {
    try {
      await this.jobs.enqueueMany(JobName.DeliverWebhook, deliveries.map((d) => ({ data: { deliveryId: d.id, distributionId: d.distributionId, projectId: d.projectId }, jobId: d.id, delay: Math.max(0, at.getTime() - Date.now()) })));
    } catch (error) {
      this.logger.warn({ err: error, deliveries: deliveries.length }, 'could not schedule webhook retries; the sweep will');
    }
  }

  /** For deliveries whose job may be finished or lost: a finished job with the id is replaced. */
  async ensure(deliveries: DeliveryRef[]): Promise<void> {
    try {
      for (const d of deliveries) await this.jobs.ensure(JobName.DeliverWebhook, { deliveryId: d.id, distributionId: d.distributionId, projectId: d.projectId }, d.id);
    } catch (error) {
      this.logger.warn({ err: error, deliveries: deliveries.length }, 'could not enqueue webhook deliveries; the sweep will');
    }
  }
}
