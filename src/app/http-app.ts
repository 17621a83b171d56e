import type { Server } from 'node:http';
import { Logger as NestLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { answerClientErrorsWithJson } from '../common/http/client-errors.js';
import { bodyGuard, jsonBodyParser, parseQuery, requestGuard } from '../common/http/request-guard.js';
import { requestIdMiddleware } from '../common/http/request-id.middleware.js';
import type { AppConfig } from '../config/app-config.js';
import { ApiModule } from './api.module.js';
import { setupSwagger } from './openapi.js';

/**
 * Builds the API application exactly as production runs it (used by main.ts, the e2e tests and the
 * OpenAPI generator), without listening.
 */
export async function createApiApp(config: AppConfig): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(ApiModule.forRoot(config), {
    bodyParser: false,
    bufferLogs: true,
    abortOnError: false,
  });
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  // No ETag: every answer would be hashed for nothing (list pages carry a fresh signed cursor each time).
  app.set('etag', false);
  // Deep objects (filters[status][conditions][$is]) with bounded depth and counts; requestGuard parses the
  // query once per request with the same function.
  app.set('query parser', parseQuery);
  // Order matters: the request id exists before anything can reject the request, and the edge checks run
  // before the body is parsed (its raw shape), right after (its strings), and before any route.
  app.use(requestIdMiddleware);
  app.use(requestGuard);
  app.use(jsonBodyParser());
  app.use(bodyGuard);
  const logger = new NestLogger('HTTP');
  answerClientErrorsWithJson(app.getHttpServer() as Server, (requestId, error, cause) =>
    logger.warn({ request_id: requestId, status: error.status, key: error.key, code: (cause as { code?: string }).code }, 'request refused by the HTTP parser'),
  );
  setupSwagger(app);
  await app.init();
  return app;
}
