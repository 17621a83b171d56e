import { Injectable, Logger } from '@nestjs/common';
import { DeliveryJobs } from './delivery-jobs.js';
import { MAX_IN_FLIGHT_PER_TARGET } from './webhook-sender.js';
import { WebhookDeliveryRepository } from './webhook-delivery.repository.js';
import { WebhookDeliveryService } from './webhook-delivery.service.js';

/** Requests in flight at once per worker process from the dispatcher (the jobs' attempts count apart). */
export const DISPATCH_CONCURRENCY = 100;
/** After a failed claim (PostgreSQL unreachable), the next one waits this long; the sweep wakes it too. */
const CLAIM_RETRY_MS = 1_000;

/**
 * The worker's path for due deliveries: claims them from PostgreSQL in batches (one statement for as many
 * as there are free slots, no distribution beyond its free slots), sends each at once, and records the
 * attempts in batches (WebhookDeliveryService). A delivery to be retried gets a delayed BullMQ job (job id
 * = delivery id) for its next attempt; so do redeliveries, recoveries and test deliveries, asked for by the
 * API. A queue job per first attempt would cost more than the HTTP exchange itself (bench/README.md).
 *
 * It claims when woken (the relay made deliveries; the webhook sweep, which also finds deliveries whose
 * worker died or whose retry job Redis lost) and whenever one of its requests ends, one claim at a time: the
 * slots freed while a claim runs go into the next one, so batches grow with the load.
 */
@Injectable()
export class DeliveryDispatcher {
  private readonly logger = new Logger('Webhooks');
  private inFlight = 0;
  private claiming = false;
  private wanted = false;
  private stopped = true;
  private retryTimer: NodeJS.Timeout | null = null;
  private readonly sends = new Set<Promise<void>>();

  constructor(
    private readonly delivery: WebhookDeliveryService,
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly jobs: DeliveryJobs,
  ) {}

  start(): void {
    this.stopped = false;
    this.wake();
  }

  /** Stops claiming and waits for the attempts in progress (sent and recorded). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    while (this.sends.size) await Promise.all(this.sends);
  }

  /** There may be due deliveries: claim them (now, or after the claim in progress). */
  wake(): void {
    this.wanted = true;
    this.claim();
  }

  private claim(): void {
    const free = DISPATCH_CONCURRENCY - this.inFlight;
    if (this.stopped || this.claiming || !this.wanted || free <= 0) return;
    this.claiming = true;
    this.wanted = false;
    this.deliveries
      .claimDue(free, this.delivery.leaseMs, MAX_IN_FLIGHT_PER_TARGET, this.delivery.load())
      .then(
        (claimed) => {
          for (const delivery of claimed) this.track(this.send(delivery));
          // A full batch: more may be due at once. Otherwise each request's end wakes the next claim.
          if (claimed.length === free) this.wanted = true;
        },
        (error: unknown) => {
          this.logger.warn({ err: error }, 'could not claim due webhook deliveries; retrying');
          this.retryTimer ??= setTimeout(() => ((this.retryTimer = null), this.wake()), CLAIM_RETRY_MS);
        },
      )
      .finally(() => {
        this.claiming = false;
        this.claim();
      });
  }

  private track(send: Promise<void>): void {
    this.sends.add(send);
    void send.finally(() => this.sends.delete(send));
  }

  private async send(delivery: Parameters<WebhookDeliveryService['attemptClaimed']>[0]): Promise<void> {
    this.inFlight += 1;
    try {
      const { again } = await this.delivery.attemptClaimed(delivery);
      if (again) await this.jobs.retryAt([{ id: delivery.id, distributionId: delivery.distributionId }], again);
    } catch (error) {
      // Not recorded (PostgreSQL failed): the lease runs out and the sweep wakes a claim of it again.
      this.logger.warn({ err: error, delivery_id: delivery.id }, 'webhook attempt could not be recorded; it will be retried');
    } finally {
      this.inFlight -= 1;
      this.wake();
    }
  }
}
