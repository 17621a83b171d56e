import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { WorkerModule } from '../worker.module.js';
import { AppLogger } from '../../common/logging/app-logger.js';
import { StartupQuietLogger } from '../../common/logging/startup-quiet.logger.js';
import { SERVICE_VERSION } from '../../common/process/version.js';
import { WORKER_ID } from '../../common/process/worker-id.js';
import { loadConfigOrExit } from '../../config/app-config.js';
import { onShutdownSignal } from '../../common/process/shutdown.js';
import { QueueName } from '../../queue/queue.definitions.js';

/** The BullMQ worker process (`dist/worker.js`): no HTTP API (GET /metrics on WORKER_METRICS_PORT, when set). Closing waits for the job in progress to finish. */
export async function startWorker(): Promise<void> {
  const config = loadConfigOrExit();
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), { bufferLogs: true, abortOnError: false });
  app.useLogger(new StartupQuietLogger(app.get(AppLogger)));
  await app.init();
  const logger = new Logger('Worker');
  // Every queue has a processor (WorkerModule).
  const queues = Object.values(QueueName);
  const metrics = config.metrics.workerPort === null ? 'off' : `on port ${config.metrics.workerPort}`;
  onShutdownSignal(async (signal) => {
    logger.log(`${signal} received: finishing the current jobs, then closing`);
    await app.close();
    logger.log({ signal }, 'Worker stopped');
  }, config.shutdown.timeoutMs);
  // Said only once a SIGTERM would be handled (as the API's ready line).
  logger.log(
    { version: SERVICE_VERSION, pid: process.pid, worker_id: WORKER_ID, queues, metrics_port: config.metrics.workerPort },
    `Worker ready (version ${SERVICE_VERSION}; queues ${queues.join(', ')}; metrics ${metrics})`,
  );
}
