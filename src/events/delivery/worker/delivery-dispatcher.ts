import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config.js';
import { DeliveryJobs } from '../delivery-jobs.js';
import { DispatchRepository } from './dispatch.repository.js';
import type { ClaimedDelivery } from '../delivery.types.js';
import { INITIAL_WINDOW } from './project-shares.js';
import { type Prepared, type SentAttempt, WebhookDeliveryService } from './webhook-delivery.service.js';
import { DISPATCH_CONCURRENCY, MAX_IN_FLIGHT_PER_TARGET } from './webhook-sender.js';

export { DISPATCH_CONCURRENCY };

/** Attempts recorded per round trip at most. */
const RECORD_BATCH = 1_000;
/** After a failed round trip (PostgreSQL unreachable), the next one waits this long. */
const RETRY_MS = 1_000;
/** How long a shutdown waits for the attempts in progress to be recorded. */
const STOP_WAIT_MS = 10_000;

/**
 * The worker's path for due deliveries, without a queue job each: a job per first attempt cost more than
 * the HTTP exchange itself (bench/README.md). One round trip to PostgreSQL at a time records the attempts
 * that ended since the last one and claims due deliveries for the free slots (no distribution beyond its
 * free slots), so batches grow with the load; each claimed delivery is sent as soon as its event's payload
 * is read (the claim's payloads in one load, most of the time). A delivery to be
 * retried gets a delayed BullMQ job (job id = delivery id) once its attempt is recorded; so do the attempts
 * the API asks for one at a time (redeliver, test): WebhookDeliveryProcessor. Recovered and resumed
 * deliveries are made due in batches by WebhookHousekeeping, and claimed here like first attempts.
 *
 * Projects take turns (DispatchRepository): each claim starts after the project where the last one stopped,
 * and no project gets more than its share of the worker's requests in flight (ProjectShares: the slots
 * divided among the projects with work, a window each project earns with timely answers, and half of the
 * slots at most for all slow projects together), so
 * projects whose targets hang hold a bounded part of the slots, for their timeout, and another project's
 * deliveries never wait behind their backlogs while slots are free.
 *
 * A claim reads no event payload: it takes deliveries while their events' stored sizes fit the payload
 * bytes free (WEBHOOK_DISPATCH_MAX_BYTES less what the requests in flight hold), and the payloads are read
 * apart, in bounded loads (WebhookDeliveryService.prepare), so that no event, however large, can make a
 * claim fail or slow for every project. A delivery whose payload cannot be read is given back, and its
 * attempt recorded as failed at the third claim; one whose event is larger than the budget gets a failed
 * attempt at once.
 *
 * It claims when woken (the relay made deliveries; the webhook sweep, which also finds deliveries whose
 * worker died or whose retry job Redis lost) and whenever one of its requests ends. A slot is held while
 * the request runs, not while its attempt waits to be recorded: the delivery's lease, which the record
 * ends, keeps it from being claimed again meanwhile. The slot is taken at the claim, so that the reading
 * of the payloads counts too.
 */
@Injectable()
export class DeliveryDispatcher {
  private readonly logger = new Logger('Webhooks');
  private inFlight = 0;
  private busy = false;
  private wanted = false;
  private stopped = true;
  private retryTimer: NodeJS.Timeout | null = null;
  private ended: SentAttempt[] = [];
  /** The project the last claim stopped at: the next one starts after it. */
  private after = '';

  constructor(
    private readonly config: AppConfig,
    private readonly delivery: WebhookDeliveryService,
    private readonly deliveries: DispatchRepository,
    private readonly jobs: DeliveryJobs,
  ) {}

  start(): void {
    this.stopped = false;
    this.wake();
  }

  /** Stops claiming, and waits (at most STOP_WAIT_MS) for the requests in flight and their records. */
  async stop(): Promise<void> {
    this.stopped = true;
    const deadline = Date.now() + STOP_WAIT_MS;
    while ((this.inFlight || this.ended.length || this.busy) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.ended.length) this.logger.warn({ attempts: this.ended.length }, 'shutting down with webhook attempts unrecorded: they will be sent again');
  }

  /** There may be due deliveries: claim them (now, or after the round trip in progress). */
  wake(): void {
    this.wanted = true;
    this.next();
  }

  private next(): void {
    if (this.busy || this.retryTimer) return;
    // No payload bytes free: nothing is claimed until a request ends (and wakes the dispatcher).
    const free = this.stopped || !this.wanted || this.delivery.budget.free() <= 0 ? 0 : DISPATCH_CONCURRENCY - this.inFlight;
    if (free <= 0 && !this.ended.length) return;
    this.busy = true;
    if (free > 0) this.wanted = false;
    const ended = this.ended.splice(0, RECORD_BATCH);
    const startedAt = Date.now();
    const { budget, shares } = this.delivery;
    this.deliveries
      .recordAndClaimDue(
        ended.map((sent) => sent.record),
        Math.max(free, 0),
        this.delivery.leaseMs,
        { perTarget: MAX_IN_FLIGHT_PER_TARGET, maxShare: this.config.webhook.projectMaxInFlight, slots: DISPATCH_CONCURRENCY, initialWindow: INITIAL_WINDOW, freeBytes: budget.free(), maxBytes: budget.max },
        this.delivery.load(),
        shares.share,
        this.after,
      )
      .then(
        ({ claimed, nextProject, share }) => {
          this.after = nextProject;
          shares.share = share;
          // dispatch catches each delivery's failures; this catch is for a fault of its own (no crash of the worker).
          if (claimed.length) void this.dispatch(claimed, startedAt).catch((error: unknown) => this.logger.error({ err: error, deliveries: claimed.length }, 'webhook dispatch failed; the leases run out and a later claim sends them'));
          // A full claim: more may be due at once. Otherwise each request's end wakes the next claim.
          if (free > 0 && claimed.length === free) this.wanted = true;
          this.scheduleRetries(ended);
        },
        (error: unknown) => {
          this.ended.unshift(...ended);
          this.wanted ||= free > 0;
          this.logger.warn({ err: error }, 'could not record webhook attempts or claim due deliveries; retrying');
          this.retryTimer = setTimeout(() => ((this.retryTimer = null), this.next()), RETRY_MS);
        },
      )
      .finally(() => {
        this.busy = false;
        this.next();
      });
  }

  /**
   * The deliveries of one claim: held (slots, payload bytes) from now on, their payloads read together,
   * then each sent and recorded, recorded as failed without a request, or given back.
   */
  private async dispatch(claimed: ClaimedDelivery[], claimedAt: number): Promise<void> {
    this.inFlight += claimed.length;
    const held = claimed.map((delivery) => this.delivery.hold(delivery));
    const prepared = await this.delivery.prepare(claimed, held, claimedAt).catch((error: unknown): Prepared[] => {
      // Not read: the leases run out and a later claim takes them again.
      this.logger.warn({ err: error, deliveries: claimed.length }, 'could not read the events of claimed webhook deliveries');
      return claimed.map(() => ({ giveBack: { counted: false } }));
    });
    const back = prepared.flatMap((p, i) => ('giveBack' in p ? [{ delivery: claimed[i], counted: p.giveBack.counted }] : []));
    if (back.length) void this.delivery.giveBack(back).catch((error: unknown) => this.logger.warn({ err: error }, 'could not give webhook deliveries back; their leases will run out'));
    await Promise.all(claimed.map((delivery, i) => this.finish(delivery, prepared[i], held[i])));
  }

  private async finish(delivery: ClaimedDelivery, prepared: Prepared, held: number): Promise<void> {
    let bytes = held;
    try {
      if ('giveBack' in prepared) return;
      let sent: SentAttempt;
      if ('send' in prepared) {
        this.delivery.budget.change(bytes, prepared.bytes);
        bytes = prepared.bytes;
        sent = await this.delivery.sendClaimed(prepared.send);
      } else sent = prepared.failed;
      if (sent.distributionChange === null) this.ended.push(sent);
      else await this.delivery.recordWithChange(sent).then(() => this.scheduleRetries([sent]));
    } catch (error) {
      // Not recorded: the lease runs out and a later claim (the sweep's at the latest) sends it again.
      this.logger.warn({ err: error, delivery_id: delivery.id }, 'webhook attempt could not be recorded; it will be sent again');
    } finally {
      this.delivery.release(delivery, bytes);
      this.inFlight -= 1;
      this.wake();
    }
  }

  /** Retries of recorded attempts, as delayed jobs (the sweep finds them if Redis loses them). */
  private scheduleRetries(recorded: SentAttempt[]): void {
    for (const { record, distributionId, projectId } of recorded) {
      if (record.nextAttemptAt) void this.jobs.retryAt([{ id: record.deliveryId, distributionId, projectId }], record.nextAttemptAt);
    }
  }
}
