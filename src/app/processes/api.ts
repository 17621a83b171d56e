import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Logger } from '@nestjs/common';
import { createApiApp } from '../http-app.js';
import { loadConfigOrExit } from '../../config/app-config.js';
import { migrateOnStart } from '../database/migrate.js';
import { onShutdownSignal } from '../../common/process/shutdown.js';
import { SERVICE_VERSION } from '../../common/process/version.js';
import { QueueName } from '../../queue/queue.definitions.js';
import { ShutdownState } from '../../health/shutdown-state.js';

/** The HTTP API process (`dist/main.js`). Migrates first (advisory lock; unless MIGRATE_ON_START=false), so one `node dist/main.js` is enough in a container. */
export async function startApi(): Promise<void> {
  const config = loadConfigOrExit();
  await migrateOnStart(config);
  const app = await createApiApp(config);
  const logger = new Logger('Api');
  const server = app.getHttpServer();
  await app.listen(config.port);
  const shutdown = app.get(ShutdownState);
  // While draining, every answer closes its connection after it (Connection: close), so that no kept-alive
  // connection of a balancer is left to be cut under a request when the listener closes.
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    if (shutdown.draining) res.setHeader('Connection', 'close');
  });
  onShutdownSignal(async (signal) => {
    const { drainMs } = config.shutdown;
    if (drainMs > 0) {
      logger.log(`${signal} received: draining for ${drainMs} ms (still serving, /health/ready answers 503), then closing the HTTP server`);
      shutdown.draining = true;
      await new Promise((resolve) => setTimeout(resolve, drainMs));
    } else {
      logger.log(`${signal} received: closing HTTP server, then connections`);
    }
    // Stop accepting and let in-flight requests finish (their answers close their connections), then release pools and queues.
    shutdown.draining = true;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    await app.close();
    logger.log({ signal }, 'API stopped');
  }, config.shutdown.timeoutMs);

  // Said only once a SIGTERM would be handled: a signal sent on this line (a supervisor, a test) must drain
  // and exit 0, not meet Node's default handler.
  const address = `http://${hostPart(server.address())}:${config.port}`;
  const queues = Object.values(QueueName);
  // Whether GET /metrics is served (docs/operations.md): `token` (METRICS_TOKEN), `public` (METRICS_PUBLIC=true) or `off`.
  const metrics = !config.metrics.served ? 'off' : config.metrics.token !== null ? 'token' : 'public';
  logger.log({ address, version: SERVICE_VERSION, pid: process.pid, queues, metrics }, `API ready on ${address} (version ${SERVICE_VERSION}; docs at /docs; queues ${queues.join(', ')}; metrics ${metrics})`);
}

/** The address the server listens on as a URL host (IPv6 in brackets; `::` when on every interface). */
function hostPart(address: ReturnType<Server['address']>): string {
  if (!address || typeof address === 'string') return 'localhost';
  return address.family === 'IPv6' ? `[${address.address}]` : address.address;
}
