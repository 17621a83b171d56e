import { type DynamicModule, Global, Injectable, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { BullModule } from '@nestjs/bullmq';
import { AppConfig } from '../config/app-config.js';
import { JobQueueService } from './job-queue.service.js';
import { DEFAULT_JOB_OPTIONS, QueueName } from './queue.definitions.js';
import { RedisConnectionLog } from './redis-connection-log.js';
import { bullConnection } from '../common/redis/redis-client.js';

/** Gives every queue of the process an 'error' listener and connection logging (see RedisConnectionLog). */
@Injectable()
export class WatchQueues implements OnApplicationBootstrap {
  constructor(
    private readonly jobs: JobQueueService,
    private readonly connections: RedisConnectionLog,
  ) {}

  onApplicationBootstrap(): void {
    // Not awaited: watching waits for each queue's client, and a process must start while Redis is down.
    for (const name of Object.values(QueueName)) void this.connections.watch('queue', this.jobs.queue(name));
  }
}

/**
 * BullMQ on Redis. The API registers queues as a producer that fails fast when Redis is down; the
 * worker registers the same queues with blocking-safe connections for its processors.
 */
@Global()
@Module({})
export class QueueModule {
  static register(role: 'api' | 'worker'): DynamicModule {
    return {
      module: QueueModule,
      imports: [
        BullModule.forRootAsync({
          inject: [AppConfig],
          useFactory: (config: AppConfig) => ({
            connection: bullConnection(config.redis, role === 'api'),
            prefix: config.queuePrefix,
            defaultJobOptions: DEFAULT_JOB_OPTIONS,
          }),
        }),
        BullModule.registerQueue(...Object.values(QueueName).map((name) => ({ name }))),
      ],
      providers: [JobQueueService, RedisConnectionLog, WatchQueues],
      exports: [BullModule, JobQueueService, RedisConnectionLog],
    };
  }
}
