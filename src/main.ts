import 'reflect-metadata';
import type { Server } from 'node:http';
import { Logger } from '@nestjs/common';
import { createApiApp } from './app/http-app.js';
import { loadConfigOrExit } from './config/app-config.js';
import { migrateDatabase } from './database/migrate.js';
import { onShutdownSignal } from './common/process/shutdown.js';

/** HTTP API process. Migrates first (advisory lock), so one `node dist/main.js` is enough in a container. */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  await migrateDatabase(config);
  const app = await createApiApp(config);
  const logger = new Logger('Api');
  const server = app.getHttpServer() as Server;
  await app.listen(config.port);
  logger.log(`API listening on port ${config.port}; docs at /docs`);

  onShutdownSignal(async (signal) => {
    logger.log(`${signal} received: closing HTTP server, then connections`);
    // Stop accepting first and let in-flight requests finish, then release pools and queues.
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    await app.close();
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`API failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
