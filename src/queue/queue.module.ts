import { type DynamicModule, Global, Module } from '@nestjs/common';
import { BullModule } from '@nestjs/bullmq';
import { AppConfig } from '../config/app-config.js';
import { JobQueueService } from './job-queue.service.js';
import { DEFAULT_JOB_OPTIONS, QueueName } from './queue.definitions.js';
import { redisOptions } from './redis-options.js';

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
            connection: redisOptions(config.redisUrl, role === 'api'),
            prefix: config.queuePrefix,
            defaultJobOptions: DEFAULT_JOB_OPTIONS,
          }),
        }),
        BullModule.registerQueue(...Object.values(QueueName).map((name) => ({ name }))),
      ],
      providers: [JobQueueService],
      exports: [BullModule, JobQueueService],
    };
  }
}
