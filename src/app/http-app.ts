import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { BODY_LIMIT_BYTES } from '../common/http/body-limit.js';
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
  // Express 5 parses queries flat by default; list filters use deep objects (filters[status][conditions][$is]).
  app.set('query parser', 'extended');
  // Order matters: the request id exists before the body parser can reject anything.
  app.use(requestIdMiddleware);
  app.useBodyParser('json', { limit: BODY_LIMIT_BYTES });
  setupSwagger(app);
  await app.init();
  return app;
}
