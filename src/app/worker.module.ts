import { type BeforeApplicationShutdown, type DynamicModule, Injectable, Logger, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService } from '@nestjs/core';
import { AsyncActionsWorker } from '../async-actions/async-actions-worker.module.js';
import { CampaignsWorker } from '../campaigns/campaigns-worker.module.js';
import { LoggingModule } from '../common/logging/logging.module.js';
import { AppConfig } from '../config/app-config.js';
import { AppConfigModule } from '../config/config.module.js';
import { DatabaseModule } from './database/database.module.js';
import { DiagnosticsWorker } from '../diagnostics/diagnostics-worker.module.js';
import { DeliveryWorker } from '../events/delivery/worker/delivery-worker.module.js';
import { IdempotencyWorker } from '../idempotency/idempotency-worker.module.js';
import { Metrics } from '../metrics/metrics.js';
import { MetricsModule } from '../metrics/metrics.module.js';
import { WorkerMetricsServer } from '../metrics/worker-metrics.server.js';
import { RateLimitModule } from '../rate-limit/rate-limit.module.js';
import { PointsWorker } from '../points/points-worker.module.js';
import { JobQueueService } from '../queue/job-queue.service.js';
import { QueueModule } from '../queue/queue.module.js';
import { QueueName } from '../queue/queue.definitions.js';
import { QueueProcessor } from '../queue/queue-processor.js';
import { RedisConnectionLog } from '../queue/redis-connection-log.js';
import { SweepTimers } from '../queue/sweeps.js';
import { type WorkerLoop, workerFeatures, workerParts } from '../queue/worker-feature.js';
import { WorkerHeartbeat } from '../queue/worker-heartbeat.js';

/**
 * The features' worker modules: this does not compile while a queue has no processor among them. Their
 * sweeps are found, and start, in this order.
 */
const FEATURES = workerFeatures([DeliveryWorker, DiagnosticsWorker, CampaignsWorker, PointsWorker, IdempotencyWorker, AsyncActionsWorker]);

/**
 * The worker's own life cycle, knowing no feature: the features' loops (WorkerLoop) and sweeps (WorkerSweep)
 * start once everything is up; at shutdown the heartbeat, the sweeps and the loops stop, then every BullMQ
 * worker closes (waiting for the jobs in progress), all before any module shuts down.
 * @nestjs/bullmq closes workers in onApplicationShutdown, which may run after TypeORM has already closed its
 * pool, so a job finishing during shutdown would fail and be retried instead of completing.
 */
@Injectable()
export class WorkerLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Worker');
  /** The features' sweeps (WorkerSweep), made at bootstrap. */
  sweeps: SweepTimers | null = null;
  private loops: WorkerLoop[] = [];
  private processors: QueueProcessor<QueueName>[] = [];
  private readonly heartbeat: WorkerHeartbeat;

  constructor(
    private readonly discovery: DiscoveryService,
    config: AppConfig,
    private readonly connections: RedisConnectionLog,
    private readonly jobs: JobQueueService,
    private readonly metrics: Metrics,
  ) {
    this.heartbeat = new WorkerHeartbeat(config.redis, config.queuePrefix);
  }

  onApplicationBootstrap(): void {
    const { sweeps, loops } = workerParts(this.discovery);
    this.processors = this.discovery
      .getProviders()
      .map((wrapper) => wrapper.instance as unknown)
      .filter((instance): instance is QueueProcessor<QueueName> => instance instanceof QueueProcessor);
    for (const name of Object.values(QueueName)) {
      if (!this.processors.some((processor) => processor.worker.name === name)) throw new Error(`Queue ${name} has no processor`);
    }
    this.loops = loops;
    this.sweeps = new SweepTimers(sweeps);
    for (const loop of loops) loop.start();
    this.sweeps.start();
    this.heartbeat.start();
    const timers = this.sweeps;
    this.connections.onRestored(() => timers.runAll());
    for (const { worker } of this.processors) {
      void this.connections.watch('worker', worker);
      this.metrics.watchFailures(worker);
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    // The workers' connections are about to close on purpose (this runs before onApplicationShutdown).
    this.connections.expectClose();
    await this.heartbeat.stop();
    await this.sweeps?.stop();
    for (const loop of [...this.loops].reverse()) await loop.stop();
    // With Redis unreachable, a graceful close waits for a QUIT that cannot be sent (and jobs that cannot
    // be marked finished) until the shutdown timeout: drop the connections instead. A job cut short this
    // way is taken back as stalled and run again, which every processor allows.
    const unreachable = this.connections.isDown;
    if (unreachable) this.logger.warn('Redis is unreachable: dropping the queue connections instead of closing them gracefully');
    await Promise.all(this.processors.map((processor) => processor.worker.close(unreachable)));
    if (unreachable) await Promise.all(Object.values(QueueName).map((name) => dropQueueConnection(this.jobs.queue(name))));
  }
}

/**
 * Drops a queue's connection without waiting for Redis. BullMQ's disconnect() first waits for the client to
 * be ready, which a connection cut before it ever was (Redis gone just after start) never is; such a queue
 * needs nothing dropped (its close() at module shutdown disconnects a client that never connected), so the
 * wait is cut short.
 */
async function dropQueueConnection(queue: { disconnect(): Promise<void> }): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([queue.disconnect().catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, 1_000)))]);
  clearTimeout(timer);
}

/** The worker process: the features' worker modules (processors, loops, sweeps). No HTTP API (only /metrics on WORKER_METRICS_PORT, when set). */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    // Wrong METRICS_TOKENs on WORKER_METRICS_PORT count as failed authentications, as on the API (AUTH_FAILURE_LIMIT).
    const limited = config.metrics.workerPort !== null && config.metrics.token !== null && config.authFailureLimit > 0;
    return {
      module: WorkerModule,
      imports: [AppConfigModule.forRoot(config), LoggingModule, MetricsModule.forRoot('worker'), DatabaseModule, QueueModule.register('worker'), DiscoveryModule, ...FEATURES, ...(limited ? [RateLimitModule] : [])],
      // WorkerMetricsServer: GET /metrics on WORKER_METRICS_PORT, when it is set.
      providers: [WorkerLifecycle, WorkerMetricsServer],
    };
  }
}
