import { type BeforeApplicationShutdown, type DynamicModule, Injectable, Module } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { WorkerHost } from '@nestjs/bullmq';
import { CampaignsModule } from '../campaigns/campaigns.module.js';
import { CardGenerationProcessor } from '../campaigns/card-generation.processor.js';
import { LoggingModule } from '../common/logging/logging.module.js';
import { AppConfig } from '../config/app-config.js';
import { AppConfigModule } from '../config/config.module.js';
import { DatabaseModule } from '../database/database.module.js';
import { DiagnosticPingProcessor } from '../diagnostics/diagnostic-ping.processor.js';
import { DiagnosticsModule } from '../diagnostics/diagnostics.module.js';
import { QueueModule } from '../queue/queue.module.js';
import { QueueName } from '../queue/queue.definitions.js';

/** Every queue's processor; the worker refuses to start if a queue has none (see worker.ts). */
export const PROCESSORS = {
  [QueueName.Diagnostics]: DiagnosticPingProcessor,
  [QueueName.Campaigns]: CardGenerationProcessor,
} as const satisfies { readonly [Q in QueueName]: unknown };

/**
 * Closes every BullMQ worker (which waits for the jobs in progress) before any module shuts down.
 * @nestjs/bullmq closes workers in onApplicationShutdown, which may run after TypeORM has already
 * closed its pool, so a job finishing during shutdown would fail and be retried instead of completing.
 */
@Injectable()
export class DrainWorkersOnShutdown implements BeforeApplicationShutdown {
  constructor(private readonly moduleRef: ModuleRef) {}

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(Object.values(PROCESSORS).map((processor) => this.moduleRef.get<WorkerHost>(processor).worker.close()));
  }
}

/** The worker process: the same feature modules as the API, plus the BullMQ processors. No HTTP. */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [AppConfigModule.forRoot(config), LoggingModule, DatabaseModule, QueueModule.register('worker'), DiagnosticsModule, CampaignsModule],
      providers: [...Object.values(PROCESSORS), DrainWorkersOnShutdown],
    };
  }
}
