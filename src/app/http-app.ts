import type { Server } from 'node:http';
import { Logger as NestLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { QUEUE_BOARD_PATH, queueBoard } from '../admin/queue-board.js';
import { AppLogger } from '../common/logging/app-logger.js';
import { RequestLogger } from '../common/logging/request-logger.js';
import { StartupQuietLogger } from '../common/logging/startup-quiet.logger.js';
import { answerClientErrorsWithJson } from '../common/http/client-errors.js';
import { parseQuery, requestGuard } from '../common/http/request-guard.js';
import { requestIdMiddleware } from '../common/http/request-id.middleware.js';
import { cacheValidationMetadata } from '../common/validation/metadata-cache.js';
import type { AppConfig } from '../config/app-config.js';
import { httpMetricsMiddleware } from '../metrics/http-metrics.js';
import { Metrics } from '../metrics/metrics.js';
import { JobQueueService } from '../queue/job-queue.service.js';
import { AuthFailureLimiter } from '../rate-limit/auth-failure-limiter.js';
import { ApiModule } from './api.module.js';
import { setupSwagger } from './openapi.js';

/**
 * Builds the API application exactly as production runs it (used by main.ts, the e2e tests and the
 * OpenAPI generator), without listening.
 */
export async function createApiApp(config: AppConfig): Promise<NestExpressApplication> {
  cacheValidationMetadata();
  const app = await NestFactory.create<NestExpressApplication>(ApiModule.forRoot(config), {
    bodyParser: false,
    bufferLogs: true,
    abortOnError: false,
  });
  app.useLogger(new StartupQuietLogger(app.get(AppLogger)));
  app.disable('x-powered-by');
  // No ETag: every answer would be hashed for nothing (list pages carry a fresh signed cursor each time).
  app.set('etag', false);
  // Deep objects (filters[status][conditions][$is]) with bounded depth and counts; requestGuard parses the
  // query once per request with the same function.
  app.set('query parser', parseQuery);
  // Which X-Forwarded-For entries name the client (TRUST_PROXY; off: the socket's peer). It is the address
  // failed authentications are counted against, so trusting a header anyone can send would let a client
  // pick a fresh address for every guess.
  app.set('trust proxy', config.trustProxy);
  // Order matters: the request timer starts first (refused requests are timed too), the request id exists
  // before anything can reject the request, and the path and query checks run before any route. The JSON
  // body is parsed by JsonBodyGuard, after the key check (docs/architecture.md, "The path of a request").
  app.use(httpMetricsMiddleware(app.get(Metrics)));
  app.use(requestIdMiddleware(app.get(RequestLogger)));
  app.use(requestGuard);
  // bull-board only when ADMIN_TOKEN is set; otherwise its path is an unknown route (404) like any other.
  // Its password is checked first (wrong ones count as failed authentications), then its JSON bodies get the
  // same checks as the API's.
  if (config.adminToken !== null) {
    const failures = config.authFailureLimit > 0 ? app.get(AuthFailureLimiter) : undefined;
    app.use(QUEUE_BOARD_PATH, ...queueBoard(config.adminToken, app.get(JobQueueService), failures));
  }
  setServerTimeouts(app.getHttpServer(), config);
  const logger = new NestLogger('HTTP');
  answerClientErrorsWithJson(app.getHttpServer(), (requestId, error, cause) =>
    logger.warn({ request_id: requestId, status: error.status, key: error.key, code: (cause as { code?: string }).code }, 'request refused by the HTTP parser'),
  );
  setupSwagger(app);
  await app.init();
  return app;
}

/**
 * Node's defaults let a client hold a connection for 60 s sending headers and 300 s sending a request, so a
 * few hundred slow clients (slowloris) exhaust sockets and memory. A connection that has not sent its
 * headers within HTTP_HEADERS_TIMEOUT_MS, or its whole request within HTTP_REQUEST_TIMEOUT_MS, is answered
 * 408 and closed. Node checks these every `connectionsCheckingInterval` (30 s by default, read when the
 * server starts listening): a quarter of the headers timeout, at most a second, keeps the cut-off close
 * to the setting.
 */
function setServerTimeouts(server: Server, config: AppConfig): void {
  server.headersTimeout = config.httpTimeouts.headersMs;
  server.requestTimeout = config.httpTimeouts.requestMs;
  server.keepAliveTimeout = config.httpTimeouts.keepAliveMs;
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.min(1_000, Math.floor(config.httpTimeouts.headersMs / 4));
}
