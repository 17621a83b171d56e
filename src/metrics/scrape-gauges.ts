import { Injectable, Logger } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { AppConfig } from '../config/app-config.js';
import { JobQueueService } from '../queue/job-queue.service.js';
import { QueueName } from '../queue/queue.definitions.js';
import { Metrics } from './metrics.js';
import { MetricsRepository } from './metrics.repository.js';

/** The job states shown per queue (BullMQ's names). Completed jobs are left out: they are history, not load. */
export const QUEUE_STATES = ['waiting', 'delayed', 'active', 'failed'] as const;

type Source = 'redis' | 'postgres';

/**
 * The API's gauges of the state in Redis and PostgreSQL, read when /metrics is scraped rather than kept up to
 * date: they describe the whole installation (every worker's queues, every project's rows), which no single
 * process sees change. `refresh` reads everything in parallel before the registry is rendered: one
 * `getJobCounts` per queue (a few O(1) Redis commands) and the three statements of MetricsRepository.
 *
 * A read is kept for METRICS_GAUGE_CACHE_MS (10 s by default, from the moment it started) and scrapes within
 * that window show it again; scrapes that arrive while a read is running wait for that read instead of
 * starting their own (single flight). So however many scrapers there are, or however often they come, an
 * API process reads the two counts over the deliveries at most once per window: a scrape is not a way to
 * load the database. A Prometheus scraping every 15 s or more sees a fresh read each time.
 * `loyalty_metrics_gauge_reads_total` counts the reads.
 *
 * A source that cannot be read (Redis or PostgreSQL down) sets `loyalty_metrics_source_up{source}` to 0 and
 * does not show its last values as if they were current: labelled gauges lose their samples, and the one
 * without labels (prom-client always shows a sample for those, 0 after a reset, which would read as "nothing
 * due") shows NaN. The scrape itself still succeeds, so the process metrics and the request histogram keep
 * flowing during an outage.
 */
@Injectable()
export class ScrapeGauges {
  private readonly logger = new Logger('Metrics');
  private readonly queueJobs: Gauge<'queue' | 'state'>;
  private readonly pendingDue: Gauge;
  private readonly expirySetAside: Gauge;
  private readonly deliveries: Gauge<'status'>;
  private readonly sourceUp: Gauge<'source'>;
  private readonly reads: Counter;
  private readonly cacheMs: number;
  /** The read in progress, which concurrent scrapes share. */
  private reading: Promise<void> | null = null;
  /** When the last read started (performance.now()); -Infinity: never. */
  private readStartedAt = Number.NEGATIVE_INFINITY;

  constructor(
    config: AppConfig,
    metrics: Metrics,
    private readonly jobs: JobQueueService,
    private readonly repository: MetricsRepository,
  ) {
    const registers = [metrics.registry];
    this.queueJobs = new Gauge({ name: 'loyalty_queue_jobs', help: 'Jobs per BullMQ queue and state (waiting, delayed, active, failed), read from Redis at scrape time', labelNames: ['queue', 'state'], registers });
    this.pendingDue = new Gauge({ name: 'loyalty_pending_points_due', help: 'PENDING points entries whose activates_at has passed and that are not activated yet, read at scrape time', registers });
    this.expirySetAside = new Gauge({ name: 'loyalty_points_expiry_set_aside_cards', help: 'Cards whose point expiry failed even alone and that the worker set aside (vouchers.expiry_error), read at scrape time', registers });
    this.deliveries = new Gauge({ name: 'loyalty_webhook_deliveries', help: 'Webhook deliveries by status, read at scrape time (PENDING and FAILED only: SUCCEEDED is not counted, see docs/operations.md)', labelNames: ['status'], registers });
    this.sourceUp = new Gauge({ name: 'loyalty_metrics_source_up', help: '1 if the last read of the gauges could read this source (redis: queue gauges; postgres: pending points, set-aside cards and deliveries gauges), else 0', labelNames: ['source'], registers });
    this.reads = new Counter({ name: 'loyalty_metrics_gauge_reads_total', help: 'Reads of the scrape-time gauges from Redis and PostgreSQL by this API process (at most one per METRICS_GAUGE_CACHE_MS, shared by concurrent scrapes)', registers });
    this.cacheMs = config.metrics.gaugeCacheMs;
  }

  /** Brings the gauges up to date unless the last read is less than METRICS_GAUGE_CACHE_MS old; joins a read in progress. */
  refresh(): Promise<void> {
    if (this.reading) return this.reading;
    const now = performance.now();
    if (now - this.readStartedAt < this.cacheMs) return Promise.resolve();
    this.reads.inc();
    const reading = this.readAll().finally(() => {
      // A failed read is kept for the window too: a database that is struggling is not asked again by every scrape.
      this.readStartedAt = now;
      this.reading = null;
    });
    this.reading = reading;
    return reading;
  }

  private async readAll(): Promise<void> {
    await Promise.all([
      this.read('redis', () => this.readQueues(), () => this.queueJobs.reset()),
      this.read('postgres', () => this.readDatabase(), () => {
        this.pendingDue.set(Number.NaN);
        this.expirySetAside.set(Number.NaN);
        this.deliveries.reset();
      }),
    ]);
  }

  private async readQueues(): Promise<void> {
    const queues = Object.values(QueueName);
    const counts = await Promise.all(queues.map((queue) => this.jobs.queue(queue).getJobCounts(...QUEUE_STATES)));
    queues.forEach((queue, i) => {
      for (const state of QUEUE_STATES) this.queueJobs.labels(queue, state).set(counts[i][state] ?? 0);
    });
  }

  private async readDatabase(): Promise<void> {
    const [due, setAside, deliveries] = await Promise.all([this.repository.duePendingPoints(), this.repository.expirySetAsideCards(), this.repository.deliveriesByStatus()]);
    this.pendingDue.set(due);
    this.expirySetAside.set(setAside);
    for (const [status, count] of Object.entries(deliveries)) this.deliveries.labels(status).set(count);
  }

  /** Runs `work`, which sets the source's gauges; if it fails, `clear` takes their values away. */
  private async read(source: Source, work: () => Promise<void>, clear: () => void): Promise<void> {
    try {
      await work();
      this.sourceUp.labels(source).set(1);
    } catch (error) {
      clear();
      this.sourceUp.labels(source).set(0);
      this.logger.warn({ err: error, source }, 'metrics: could not read the gauges of this source');
    }
  }
}
