import { readFileSync } from 'node:fs';
import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config.js';
import { TransactionRunner } from '../../../database/transaction-runner.js';
import { Metrics } from '../../../metrics/metrics.js';
import { DistributionRepository } from '../../distributions/distribution.repository.js';
import { WebhookSecretRepository } from '../../secrets/webhook-secret.repository.js';
import { nextAttemptAt, parseRetryAfter } from './retry-schedule.js';
import { standardSignatures, voucherifySignature } from '../signing.js';
import { AddressGuard } from '../ssrf-guard.js';
import type { DeliveryStatus } from '../webhook-delivery.entity.js';
import { MicroBatcher } from './micro-batcher.js';
import { type AttemptContext, type AttemptRecord, type ClaimedDelivery, type NotClaimed, withPayload } from '../delivery.types.js';
import { WorkerDeliveryRepository } from './worker-delivery.repository.js';
import { envelopeOf } from '../webhook-envelope.js';
import { EventPayloadRepository } from './event-payload.repository.js';
import { PayloadBudget, PayloadLoader } from './payload-loader.js';
import { ProjectShares } from './project-shares.js';
import { DISPATCH_CONCURRENCY, WebhookSender, type WebhookResult } from './webhook-sender.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
export const USER_AGENT = `loyalty-service-webhooks/${VERSION}`;
/** A distribution with its share of requests in flight and of jobs waiting: the job comes back this much later. */
const BUSY_TARGET_WAIT_MS = 200;
/** Claims in a row whose event could not be read before the attempt is recorded as failed. */
export const LOAD_TRIES = 3;
/** A delivery given back (its event not read) can be claimed again this much later. */
const GIVE_BACK_MS = 1_000;
/** Of the lease, what is left for the request and its record once the payload is read: the timeout and this. */
const LEASE_MARGIN_MS = 1_000;

/**
 * What the job does next: nothing (settled, or waiting for its distribution), or run again at `again`;
 * `toDispatcher`: wake the dispatcher (the job left its due delivery to it, its project being slow or at its
 * share of the worker's requests in flight, or the byte budget full; or a slot or bytes are free again).
 */
export type AttemptOutcome = { again: Date | null; toDispatcher?: true };

/**
 * A claimed delivery once its event's payload was looked for: to send (`bytes` of payload held), an attempt
 * that failed without a request (to record), or to give back without an attempt (`counted`: a failed load).
 */
export type Prepared = { send: AttemptContext; bytes: number } | { failed: SentAttempt } | { giveBack: { counted: boolean } };

/** An attempt sent and judged, not recorded yet; `distributionChange` when it also changes its distribution. */
export interface SentAttempt {
  record: AttemptRecord;
  distributionId: string;
  projectId: string;
  distributionChange: 'DISABLED' | 'PAUSED' | null;
}

/**
 * One attempt of one delivery, in the worker: claim it (without its event's payload), read the payload
 * within the worker's byte budget, sign and send the envelope, record the attempt and the delivery's next
 * state in one transaction, and say when the job must run again (the retry schedule, counted from the
 * first attempt; at least `Retry-After` for a 429 or 503).
 *
 * 2xx: SUCCEEDED. 410: the distribution is DISABLED and its PENDING deliveries FAILED. Another failure:
 * retried on the schedule; after the last retry the delivery is FAILED and the distribution PAUSED. An
 * attempt asked for by hand (redeliver, recover) that fails leaves the delivery FAILED and the distribution
 * as it was.
 */
@Injectable()
export class WebhookDeliveryService implements OnModuleDestroy {
  private readonly logger = new Logger('Webhooks');
  private readonly sender: WebhookSender;
  private readonly loader: PayloadLoader;
  private readonly claims: MicroBatcher<string, ClaimedDelivery | NotClaimed>;
  private readonly records: MicroBatcher<AttemptRecord, undefined>;
  /** Projects whose jobs left due deliveries to the dispatcher while at their share or slow (woken when a slot frees). */
  private readonly leftToDispatcher = new Set<string>();
  /** A job left its delivery to the dispatcher for want of payload bytes: wake it when a job's bytes free. */
  private leftForBytes = false;
  /** Each project's share of the worker's slots (the dispatcher's claims and the jobs'). */
  readonly shares: ProjectShares;
  /** The event payload bytes the worker's attempts hold (WEBHOOK_DISPATCH_MAX_BYTES). */
  readonly budget: PayloadBudget;

  constructor(
    private readonly config: AppConfig,
    private readonly deliveries: WorkerDeliveryRepository,
    private readonly distributions: DistributionRepository,
    private readonly secrets: WebhookSecretRepository,
    private readonly transactions: TransactionRunner,
    private readonly metrics: Metrics,
    events: EventPayloadRepository,
  ) {
    this.sender = new WebhookSender(new AddressGuard(config.webhook.allowedCidrs), config.webhook.socketIdleMs);
    this.shares = new ProjectShares(DISPATCH_CONCURRENCY, config.webhook.projectMaxInFlight, config.webhook.timeoutMs);
    this.budget = new PayloadBudget(config.webhook.dispatchMaxBytes);
    this.loader = new PayloadLoader(events, this.budget);
    this.claims = new MicroBatcher((ids) => deliveries.claimMany(ids, this.leaseMs));
    this.records = new MicroBatcher(async (attempts) => {
      const recorded = await deliveries.recordMany(null, attempts);
      if (recorded < attempts.length) this.logger.log({ dropped: attempts.length - recorded }, 'webhook attempts of deliveries deleted meanwhile (with their distribution) were dropped');
      return attempts.map(() => undefined);
    });
  }

  onModuleDestroy(): void {
    this.sender.close();
  }

  /** How long a claim holds its delivery: reading its payload, the attempt's timeout, and some room to record it. */
  get leaseMs(): number {
    return this.config.webhook.timeoutMs + 5_000;
  }

  /** The worker's requests in flight per distribution and per project, and the projects' caps (ProjectShares). */
  load(): { targets: Map<string, number>; projects: Map<string, number>; caps: Map<string, number> } {
    const load = this.sender.load();
    return { ...load, caps: this.shares.caps(load.projects) };
  }

  /**
   * Holds a slot of its distribution and of its project, and its event's stored size in payload bytes, for a
   * delivery the dispatcher claimed, until `release`: from the claim on, so that the next claim counts it.
   * The bytes held.
   */
  hold(delivery: ClaimedDelivery): number {
    this.sender.take(delivery.distributionId, delivery.projectId);
    const bytes = reservedFor(delivery, this.budget.max);
    this.budget.change(0, bytes);
    return bytes;
  }

  /** Ends a `hold` that holds `bytes` now. */
  release(delivery: ClaimedDelivery, bytes: number): void {
    this.sender.release(delivery.distributionId);
    this.sender.count(delivery.projectId, -1);
    this.budget.change(bytes, 0);
  }

  /**
   * Reads the payloads of claimed deliveries' events (their stored sizes are `held` already), bounded in
   * bytes (PayloadLoader), and says what to do with each: send it; record a failed attempt without a
   * request, when its event is larger than WEBHOOK_DISPATCH_MAX_BYTES or could not be read at the
   * LOAD_TRIES-th claim in a row; or give it back, counting a failed load or not (its payload not read
   * through no fault of its own). Payloads read too late to be sent within the lease count as failed loads.
   */
  async prepare(claimed: ClaimedDelivery[], held: number[], claimedAt: number): Promise<Prepared[]> {
    const notAfter = claimedAt + this.leaseMs - this.config.webhook.timeoutMs - LEASE_MARGIN_MS;
    // Small events' payloads came with the claim (DispatchRepository): no load, no round trip.
    const reading = claimed.map((d, i) => (d.event && !d.event.inline ? { eventId: d.event.id, storedBytes: d.event.storedBytes, reserved: held[i], notAfter } : null));
    const toRead = reading.filter((r) => r !== null);
    const payloads = toRead.length ? await this.loader.load(toRead) : [];
    let next = 0;
    return claimed.map((delivery, i): Prepared => {
      const inline = delivery.event?.inline;
      if (inline) return { send: withPayload(delivery, inline.data), bytes: inline.bytes };
      if (!reading[i]) return { send: withPayload(delivery, ''), bytes: 0 };
      const payload = payloads[next++];
      if ('data' in payload && Date.now() <= notAfter) return { send: withPayload(delivery, payload.data), bytes: payload.bytes };
      if ('tooLarge' in payload) return { failed: this.failedWithout(delivery, `could not send: the event's payload (${payload.tooLarge} bytes) is larger than WEBHOOK_DISPATCH_MAX_BYTES (${this.budget.max})`) };
      if ('later' in payload) return { giveBack: { counted: false } };
      const error = 'failed' in payload ? payload.failed : 'read too late to be sent within the lease';
      if (delivery.loadFailures + 1 < LOAD_TRIES) return { giveBack: { counted: true } };
      return { failed: this.failedWithout(delivery, `could not load the event (${LOAD_TRIES} tries): ${error}`.slice(0, 1000)) };
    });
  }

  /** Claimed deliveries not sent, back to the due deliveries (a second later). */
  async giveBack(deliveries: { delivery: ClaimedDelivery; counted: boolean }[]): Promise<void> {
    if (!deliveries.length) return;
    await this.deliveries.giveBack(
      deliveries.map(({ delivery, counted }) => ({ id: delivery.id, leaseUntil: delivery.leaseUntil, counted })),
      GIVE_BACK_MS,
    );
    const counted = deliveries.filter((d) => d.counted);
    if (counted.length) this.logger.warn({ delivery_ids: counted.map((d) => d.delivery.id) }, 'could not read the events of webhook deliveries; they will be claimed again');
  }

  /**
   * Sends one attempt of a delivery the dispatcher claimed and held, and judges the answer. Recording it is
   * the caller's: in a batch, or with `recordWithChange`.
   */
  sendClaimed(delivery: AttemptContext): Promise<SentAttempt> {
    return this.sendAndJudge(delivery);
  }

  /**
   * An attempt that changes its distribution (410: DISABLED; the last retry failed: PAUSED), in one
   * transaction that takes the distribution's row first: many attempts reporting the same change at once
   * (64 hung requests answered 410 together) queue on it instead of deadlocking on each other's deliveries,
   * and only the first changes the status and settles the other deliveries; the rest only record themselves.
   */
  async recordWithChange(sent: SentAttempt): Promise<void> {
    const change = sent.distributionChange;
    if (change === null) throw new Error('recordWithChange: the attempt changes no distribution');
    const changed = await this.transactions.run(async (tx) => {
      const made = await this.distributions.changeStatus(tx, sent.distributionId, change);
      await this.deliveries.recordMany(tx, [sent.record]);
      if (made && change === 'DISABLED') await this.deliveries.failPending(tx, sent.distributionId);
      else if (made) await this.deliveries.park(tx, sent.distributionId);
      return made;
    });
    if (!changed) return;
    if (change === 'DISABLED') this.logger.warn({ distribution_id: sent.distributionId }, 'target answered 410 Gone: distribution disabled');
    else this.logger.warn({ distribution_id: sent.distributionId }, 'last retry failed: distribution paused');
  }

  /**
   * The attempt a job asks for: takes a slot of the project's share (and window), waits for a slot of the
   * distribution, then claims the delivery. A project at its share, or slow, leaves the delivery, due in its row, to the
   * dispatcher, whose claim takes projects in turn and keeps slow ones within their half: the job ends at
   * once instead of holding one of the worker's job slots (a hanging project's retries and tests filled all
   * of them before, and every other project's retries waited), and the dispatcher is woken when a slot of
   * the project's share is free again. The share is taken before the claim, so jobs that start together
   * cannot pass it.
   */
  async attempt(deliveryId: string, distributionId: string, projectId?: string): Promise<AttemptOutcome> {
    // A job queued by an earlier version carries no project: counted once its claim names it.
    if (projectId === undefined) return this.attemptWithin(deliveryId, distributionId, null);
    if (this.shares.isSlow(projectId) || !this.sender.reserve(projectId, Math.min(this.shares.share, this.shares.window(projectId)))) {
      this.leftToDispatcher.add(projectId);
      return { again: null, toDispatcher: true };
    }
    let outcome: AttemptOutcome;
    try {
      outcome = await this.attemptWithin(deliveryId, distributionId, projectId);
    } finally {
      this.sender.count(projectId, -1);
    }
    return this.leftToDispatcher.delete(projectId) ? { ...outcome, toDispatcher: true } : outcome;
  }

  /** The attempt of a job, within its project's share when `projectId` is given (counted by the caller). */
  private async attemptWithin(deliveryId: string, distributionId: string, projectId: string | null): Promise<AttemptOutcome> {
    if (!(await this.sender.acquire(distributionId))) return { again: new Date(Date.now() + BUSY_TARGET_WAIT_MS) };
    try {
      const claimed = await this.claims.submit(deliveryId);
      if (!('id' in claimed)) return { again: claimed.retryAt };
      if (projectId === null) this.sender.count(claimed.projectId, 1);
      try {
        return await this.attemptClaimed(claimed);
      } finally {
        if (projectId === null) this.sender.count(claimed.projectId, -1);
      }
    } finally {
      this.sender.release(distributionId);
    }
  }

  /**
   * A job's claimed delivery: its payload read within the byte budget (when the budget has no room for it,
   * the delivery is given back to the dispatcher's claim, which keeps the budget), sent, and recorded.
   */
  private async attemptClaimed(claimed: ClaimedDelivery): Promise<AttemptOutcome> {
    let held = reservedFor(claimed, this.budget.max);
    if (held > this.budget.free() && this.budget.held > 0) {
      await this.deliveries.giveBack([{ id: claimed.id, leaseUntil: claimed.leaseUntil, counted: false }], 0);
      this.leftForBytes = true;
      return { again: null, toDispatcher: true };
    }
    this.budget.change(0, held);
    let sent: SentAttempt;
    try {
      const [prepared] = await this.prepare([claimed], [held], Date.now());
      if ('giveBack' in prepared) {
        await this.giveBack([{ delivery: claimed, counted: prepared.giveBack.counted }]);
        return { again: new Date(Date.now() + GIVE_BACK_MS) };
      }
      if ('send' in prepared) {
        this.budget.change(held, prepared.bytes);
        held = prepared.bytes;
        sent = await this.sendAndJudge(prepared.send);
      } else sent = prepared.failed;
    } finally {
      this.budget.change(held, 0);
    }
    // The usual case: recorded with the other attempts that ended meanwhile, in one statement.
    if (sent.distributionChange === null) await this.records.submit(sent.record);
    else await this.recordWithChange(sent);
    const outcome = { again: sent.record.nextAttemptAt };
    if (!this.leftForBytes) return outcome;
    this.leftForBytes = false;
    return { ...outcome, toDispatcher: true };
  }

  private async sendAndJudge(delivery: AttemptContext): Promise<SentAttempt> {
    const at = new Date();
    // Whatever goes wrong from here on is this attempt's failure, recorded with its error like any other, so
    // that the retry schedule, FAILED and PAUSED apply: an attempt that threw and was never recorded left its
    // delivery at the head of the due deliveries, claimed again after every lease (issue 26).
    const result = await this.sendSigned(delivery, at).catch(
      (error: unknown): WebhookResult => ({ statusCode: null, durationMs: 0, error: `could not send: ${messageOf(error)}`.slice(0, 1000), responseExcerpt: null, retryAfter: undefined }),
    );
    this.shares.observe(delivery.projectId, result.durationMs);
    return this.judge(delivery, at, result);
  }

  /** An attempt that failed before any request (its event could not be read, or is too large), judged like any. */
  private failedWithout(delivery: ClaimedDelivery, error: string): SentAttempt {
    return this.judge(delivery, new Date(), { statusCode: null, durationMs: 0, error, responseExcerpt: null, retryAfter: undefined });
  }

  private judge(delivery: Pick<ClaimedDelivery, 'id' | 'projectId' | 'distributionId' | 'attemptsCount' | 'firstAttemptAt' | 'manual'>, at: Date, result: WebhookResult): SentAttempt {
    this.metrics.deliveryAttempted(result.statusCode, result.durationMs);
    const now = new Date();
    const succeeded = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    const gone = result.statusCode === 410;
    const attempts = delivery.attemptsCount + 1;
    const retryAfter = result.statusCode === 429 || result.statusCode === 503 ? parseRetryAfter(result.retryAfter, now) : null;
    const next = succeeded || gone || delivery.manual ? null : nextAttemptAt(delivery.firstAttemptAt ?? at, attempts, this.config.webhook.retryBaseMs, now, retryAfter);
    const status: DeliveryStatus = succeeded ? 'SUCCEEDED' : next ? 'PENDING' : 'FAILED';
    const record = { deliveryId: delivery.id, at, statusCode: result.statusCode, durationMs: result.durationMs, error: result.error, responseExcerpt: result.responseExcerpt, status, nextAttemptAt: next };
    if (!succeeded) {
      this.logger.warn({ delivery_id: delivery.id, distribution_id: delivery.distributionId, attempt: attempts, status_code: result.statusCode, error: result.error, next_attempt_at: next?.toISOString() ?? null }, 'webhook attempt failed');
    }
    return { record, distributionId: delivery.distributionId, projectId: delivery.projectId, distributionChange: gone ? 'DISABLED' : status === 'FAILED' && !delivery.manual ? 'PAUSED' : null };
  }

  /** Signs the envelope with the project's secrets and sends it. */
  private async sendSigned(delivery: AttemptContext, at: Date): Promise<WebhookResult> {
    if (delivery.unreadable) throw new Error(delivery.unreadable);
    const secret = delivery.secret ?? { current: await this.secrets.ensure(delivery.projectId), previous: null, previousExpiresAt: null };
    const body = envelopeOf(delivery);
    const timestamp = Math.floor(at.getTime() / 1000);
    const valid = [secret.current, ...(secret.previous && secret.previousExpiresAt && secret.previousExpiresAt > at ? [secret.previous] : [])];
    return this.sender.send({
      url: delivery.targetUrl,
      timeoutMs: this.config.webhook.timeoutMs,
      body,
      headers: {
        ...delivery.customHeaders,
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'x-voucherify-signature': voucherifySignature(secret.current, body),
        'webhook-id': delivery.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': standardSignatures(valid, delivery.id, timestamp, body),
      },
    });
  }
}

/** The payload bytes a claimed delivery holds until its event is read: its stored size (none for one never read). */
function reservedFor(delivery: ClaimedDelivery, max: number): number {
  const stored = delivery.event?.storedBytes ?? 0;
  return stored > max ? 0 : stored;
}

/** An error's message (also for errors made in another realm, which `instanceof Error` does not see). */
function messageOf(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(error);
}
