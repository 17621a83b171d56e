import { type DynamicModule, Module } from '@nestjs/common';
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
} as const satisfies { readonly [Q in QueueName]: unknown };

/** The worker process: the same feature modules as the API, plus the BullMQ processors. No HTTP. */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [AppConfigModule.forRoot(config), LoggingModule, DatabaseModule, QueueModule.register('worker'), DiagnosticsModule],
      providers: Object.values(PROCESSORS),
    };
  }
}
