import { type BeforeApplicationShutdown, type DynamicModule, Injectable, Logger, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { WorkerHost } from '@nestjs/bullmq';
import { CampaignsModule } from '../campaigns/campaigns.module.js';
import { CardGenerationProcessor } from '../campaigns/card-generation.processor.js';
import { CardGenerationService } from '../campaigns/card-generation.service.js';
import { LoggingModule } from '../common/logging/logging.module.js';
import { AppConfig } from '../config/app-config.js';
import { AppConfigModule } from '../config/config.module.js';
import { DatabaseModule } from './database/database.module.js';
import { DiagnosticPingProcessor } from '../diagnostics/diagnostic-ping.processor.js';
import { DiagnosticsModule } from '../diagnostics/diagnostics.module.js';
import { WebhookDeliveryProcessor } from '../events/delivery/webhook-delivery.processor.js';
import { WebhookRelay } from '../events/delivery/webhook-relay.js';
import { DeliveryDispatcher } from '../events/delivery/delivery-dispatcher.js';
import { EventsModule } from '../events/events.module.js';
import { Metrics } from '../metrics/metrics.js';
import { MetricsModule } from '../metrics/metrics.module.js';
import { WorkerMetricsServer } from '../metrics/worker-metrics.server.js';
import { internalCause } from '../events/events.service.js';
import { ActivationService } from '../points/pending/activation.service.js';
import { PendingPointsProcessor } from '../points/pending/pending-points.processor.js';
import { PointsModule } from '../points/points.module.js';
import { JobQueueService } from '../queue/job-queue.service.js';
import { QueueModule } from '../queue/queue.module.js';
import { QueueName } from '../queue/queue.definitions.js';
import { RedisConnectionLog } from '../queue/redis-connection-log.js';
import { SweepTimers } from '../queue/sweeps.js';
import { WorkerHeartbeat } from '../queue/worker-heartbeat.js';

/** Every queue's processor; the worker refuses to start if a queue has none (see worker.ts). */
export const PROCESSORS = {
  [QueueName.Diagnostics]: DiagnosticPingProcessor,
  [QueueName.Campaigns]: CardGenerationProcessor,
  [QueueName.PendingPoints]: PendingPointsProcessor,
  [QueueName.Webhooks]: WebhookDeliveryProcessor,
} as const satisfies { readonly [Q in QueueName]: unknown };

/** Due entries one sweep transaction activates. */
export const PENDING_POINTS_SWEEP_BATCH = 1_000;

/**
 * The worker's own life cycle: the sweeps start once everything is up; at shutdown they stop, then every
 * BullMQ worker closes (waiting for the jobs in progress), all before any module shuts down.
 * @nestjs/bullmq closes workers in onApplicationShutdown, which may run after TypeORM has already closed its
 * pool, so a job finishing during shutdown would fail and be retried instead of completing.
 */
@Injectable()
export class WorkerLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Worker');
  readonly sweeps: SweepTimers;
  private readonly heartbeat: WorkerHeartbeat;

  constructor(
    private readonly moduleRef: ModuleRef,
    config: AppConfig,
    private readonly cards: CardGenerationService,
    activation: ActivationService,
    private readonly connections: RedisConnectionLog,
    private readonly relay: WebhookRelay,
    private readonly dispatcher: DeliveryDispatcher,
    private readonly jobs: JobQueueService,
    private readonly metrics: Metrics,
  ) {
    this.heartbeat = new WorkerHeartbeat(config.redisUrl, config.queuePrefix);
    this.sweeps = new SweepTimers([
      { name: 'webhooks', everyMs: config.sweeps.webhooksMs, run: () => relay.sweep() },
      { name: 'card-generation', everyMs: config.sweeps.cardGenerationMs, run: () => cards.sweep() },
      { name: 'pending-points', everyMs: config.sweeps.pendingPointsMs, run: () => activation.sweep(PENDING_POINTS_SWEEP_BATCH, internalCause()) },
    ]);
  }

  onApplicationBootstrap(): void {
    this.dispatcher.start();
    this.relay.start();
    this.sweeps.start();
    this.heartbeat.start();
    this.connections.onRestored(() => this.sweeps.runAll());
    for (const processor of Object.values(PROCESSORS)) {
      const { worker } = this.moduleRef.get<WorkerHost>(processor);
      void this.connections.watch('worker', worker);
      this.metrics.watchFailures(worker);
    }
    // Not awaited: with Redis down this would wait for it, and the worker must start anyway.
    void this.cards.removeLegacyScheduler().catch((error: unknown) => this.logger.warn({ err: error }, 'could not remove the legacy card generation scheduler'));
  }

  async beforeApplicationShutdown(): Promise<void> {
    // The workers' connections are about to close on purpose (this runs before onApplicationShutdown).
    this.connections.expectClose();
    await this.heartbeat.stop();
    await this.sweeps.stop();
    await this.relay.stop();
    await this.dispatcher.stop();
    // With Redis unreachable, a graceful close waits for a QUIT that cannot be sent (and jobs that cannot
    // be marked finished) until the shutdown timeout: drop the connections instead. A job cut short this
    // way is taken back as stalled and run again, which every processor allows.
    const unreachable = this.connections.isDown;
    if (unreachable) this.logger.warn('Redis is unreachable: dropping the queue connections instead of closing them gracefully');
    await Promise.all(Object.values(PROCESSORS).map((processor) => this.moduleRef.get<WorkerHost>(processor).worker.close(unreachable)));
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

/** The worker process: the same feature modules as the API, plus the BullMQ processors. No HTTP API (only /metrics on WORKER_METRICS_PORT, when set). */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [AppConfigModule.forRoot(config), LoggingModule, MetricsModule.forRoot('worker'), DatabaseModule, QueueModule.register('worker'), DiagnosticsModule, CampaignsModule, PointsModule, EventsModule],
      // WorkerMetricsServer: GET /metrics on WORKER_METRICS_PORT, when it is set.
      providers: [...Object.values(PROCESSORS), WorkerLifecycle, WorkerMetricsServer],
    };
  }
}
