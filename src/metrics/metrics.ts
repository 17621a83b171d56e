import { Counter, Histogram, type Metric, Registry, collectDefaultMetrics } from 'prom-client';
import type { Worker } from 'bullmq';
import { QueueName } from '../queue/queue.definitions.js';

/** Which process a registry belongs to: it decides which instruments are exposed (see `Metrics`). */
export type MetricsRole = 'api' | 'worker';

/** What ran an activation: the worker's delayed job (batched), the worker's sweep, or the manual endpoint. */
export type ActivationTrigger = 'job' | 'sweep' | 'api';
export type ActivationOperation = 'AUTOMATIC' | 'MANUAL';

/**
 * How an HTTP attempt of a webhook ended: a 2xx; another status (3xx redirects included, they are never
 * followed); or no status at all (timeout, refused or reset connection, DNS failure, blocked address: the
 * attempt's `error`, shown by GET …/deliveries/{id}, says which).
 */
export type AttemptOutcome = 'success' | 'http_error' | 'no_response';

export function attemptOutcome(statusCode: number | null): AttemptOutcome {
  if (statusCode === null) return 'no_response';
  return statusCode >= 200 && statusCode < 300 ? 'success' : 'http_error';
}

/** Answers of the API take milliseconds (the member list ~1 ms); the upper buckets catch the slow tail. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** A webhook attempt lasts up to WEBHOOK_TIMEOUT_MS (10 s by default, at most 600 s). */
/** Paid orders per batch: 1 is an order alone, 64 a full batch (OrdersService's limit). */
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64];
const ATTEMPT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 600];

/**
 * The instruments features record into, and the registry `/metrics` renders. One instance per Nest
 * application (MetricsModule makes it), each with its own prom-client Registry and never the global default
 * one: an API and a worker started in one jest process, or two APIs, must not see each other's counts, and
 * prom-client refuses a second metric of one name in one registry.
 *
 * Every instrument exists in both processes, so that a shared service (ActivationService runs in both) can
 * record without knowing where it runs; only the role's instruments are registered, so the API does not
 * show worker-only names with no samples. Label combinations a process can produce are set to 0 up front,
 * so that `rate()` and `increase()` see the series from the first scrape, not from the first event.
 */
export class Metrics {
  readonly registry = new Registry();

  readonly httpDuration = new Histogram({
    name: 'loyalty_http_request_duration_seconds',
    help: 'Time from the request reaching the API to the end of its answer, by route template (unmatched: no route), method and status',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: HTTP_BUCKETS,
    registers: [],
  });

  readonly paidOrderBatches = new Histogram({
    name: 'loyalty_paid_order_batch_size',
    help: 'Paid orders (POST /v1/orders, PAID, by source_id with a customer) written by one batch transaction of this API; 1: an order alone',
    buckets: BATCH_BUCKETS,
    registers: [],
  });

  readonly redemptionBatches = new Histogram({
    name: 'loyalty_redemption_batch_size',
    help: 'Redemptions (POST …/members/{memberId}/redemption) read and checked by one batch of this API, MATERIAL ones written by its transaction; 1: a redemption alone',
    buckets: BATCH_BUCKETS,
    registers: [],
  });

  readonly activations = new Counter({
    name: 'loyalty_pending_points_activations_total',
    help: 'Pending points entries activated, by operation_type (as the activated event says) and trigger (job, sweep or api)',
    labelNames: ['operation_type', 'trigger'] as const,
    registers: [],
  });

  readonly deliveryAttempts = new Counter({
    name: 'loyalty_webhook_delivery_attempts_total',
    help: 'HTTP attempts of webhook deliveries, by outcome (success: 2xx; http_error: another status; no_response: timeout or connection failure)',
    labelNames: ['outcome'] as const,
    registers: [],
  });

  readonly deliveryAttemptDuration = new Histogram({
    name: 'loyalty_webhook_delivery_attempt_duration_seconds',
    help: 'Duration of HTTP attempts of webhook deliveries (connect to end of answer, or timeout), by outcome',
    labelNames: ['outcome'] as const,
    buckets: ATTEMPT_BUCKETS,
    registers: [],
  });

  readonly jobFailures = new Counter({
    name: 'loyalty_queue_job_failures_total',
    help: 'Failed runs of BullMQ jobs in this worker, by queue (each failed attempt, whether or not it is retried)',
    labelNames: ['queue'] as const,
    registers: [],
  });

  constructor(readonly role: MetricsRole) {
    const shared: Metric[] = [this.activations];
    const own: Metric[] = role === 'api' ? [this.httpDuration, this.paidOrderBatches, this.redemptionBatches] : [this.deliveryAttempts, this.deliveryAttemptDuration, this.jobFailures];
    for (const metric of [...shared, ...own]) this.registry.registerMetric(metric);
    // CPU, memory, event loop lag, GC: read at scrape time, except the GC and event loop observers.
    collectDefaultMetrics({ register: this.registry });

    if (role === 'api') {
      this.activations.labels('MANUAL', 'api').inc(0);
    } else {
      for (const trigger of ['job', 'sweep'] as const) this.activations.labels('AUTOMATIC', trigger).inc(0);
      for (const outcome of ['success', 'http_error', 'no_response'] as const) this.deliveryAttempts.labels(outcome).inc(0);
      for (const queue of Object.values(QueueName)) this.jobFailures.labels(queue).inc(0);
    }
  }

  activated(operation: ActivationOperation, trigger: ActivationTrigger, count: number): void {
    if (count > 0) this.activations.labels(operation, trigger).inc(count);
  }

  /** A batch of paid orders committed (its orders that reached the transaction). */
  paidOrderBatch(orders: number): void {
    this.paidOrderBatches.observe(orders);
  }

  /** A batch of redemptions done (its requests, whatever each one's outcome). */
  redemptionBatch(redemptions: number): void {
    this.redemptionBatches.observe(redemptions);
  }

  deliveryAttempted(statusCode: number | null, durationMs: number): void {
    const outcome = attemptOutcome(statusCode);
    this.deliveryAttempts.labels(outcome).inc();
    this.deliveryAttemptDuration.labels(outcome).observe(durationMs / 1000);
  }

  /**
   * Counts the failed runs of a BullMQ worker. A job moved back to the delayed set (a webhook waiting for its
   * next retry, DelayedError) is not a failure for BullMQ, so it is not counted.
   */
  watchFailures(worker: Worker): void {
    worker.on('failed', () => this.jobFailures.labels(worker.name).inc());
  }

  /** The exposition text and its content type, for both /metrics endpoints. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
