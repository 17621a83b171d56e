import type { Server } from 'node:http';
import { Logger } from '@nestjs/common';
import { createApiApp } from '../http-app.js';
import { loadConfigOrExit } from '../../config/app-config.js';
import { migrateOnStart } from '../database/migrate.js';
import { onShutdownSignal } from '../../common/process/shutdown.js';
import { SERVICE_VERSION } from '../../common/process/version.js';
import { QueueName } from '../../queue/queue.definitions.js';

/** The HTTP API process (`dist/main.js`). Migrates first (advisory lock; unless MIGRATE_ON_START=false), so one `node dist/main.js` is enough in a container. */
export async function startApi(): Promise<void> {
  const config = loadConfigOrExit();
  await migrateOnStart(config);
  const app = await createApiApp(config);
  const logger = new Logger('Api');
  const server = app.getHttpServer();
  await app.listen(config.port);
  const address = `http://${hostPart(server.address())}:${config.port}`;
  const queues = Object.values(QueueName);
  // Whether GET /metrics is served (docs/operations.md): `token` (METRICS_TOKEN), `public` (METRICS_PUBLIC=true) or `off`.
  const metrics = !config.metrics.served ? 'off' : config.metrics.token !== null ? 'token' : 'public';
  logger.log({ address, version: SERVICE_VERSION, pid: process.pid, queues, metrics }, `API ready on ${address} (version ${SERVICE_VERSION}; docs at /docs; queues ${queues.join(', ')}; metrics ${metrics})`);

  onShutdownSignal(async (signal) => {
    logger.log(`${signal} received: closing HTTP server, then connections`);
    // Stop accepting first and let in-flight requests finish, then release pools and queues.
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    await app.close();
    logger.log({ signal }, 'API stopped');
  });
}

/** The address the server listens on as a URL host (IPv6 in brackets; `::` when on every interface). */
function hostPart(address: ReturnType<Server['address']>): string {
  if (!address || typeof address === 'string') return 'localhost';
  return address.family === 'IPv6' ? `[${address.address}]` : address.address;
}
