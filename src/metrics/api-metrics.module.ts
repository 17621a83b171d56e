import { type DynamicModule, Injectable, Logger, Module, type OnApplicationBootstrap } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { MetricsController } from './metrics.controller.js';
import { MetricsRepository } from './metrics.repository.js';
import { MetricsTokenGuard } from './metrics-token.guard.js';
import { ScrapeGauges } from './scrape-gauges.js';

/**
 * Says once, at start-up, why GET /metrics answers 404: in production the API's port is the public one, and an
 * open /metrics there would show every project's backlog to anyone and let anyone make it read the database.
 */
@Injectable()
class MetricsOffNotice implements OnApplicationBootstrap {
  onApplicationBootstrap(): void {
    new Logger('Metrics').warn(
      'GET /metrics is off: NODE_ENV is production and METRICS_TOKEN is not set. Set METRICS_TOKEN (16-200 characters) to serve it; Prometheus then sends "Authorization: Bearer <token>"',
    );
  }
}

/**
 * GET /metrics of the API process. Its gauges read Redis through the global QueueModule and PostgreSQL through
 * its own repository, so it imports no feature module (and none imports it). The request histogram is fed by
 * httpMetricsMiddleware, which createApiApp installs before every other middleware, whether or not this
 * module serves the endpoint.
 *
 * With `config.metrics.api` false (NODE_ENV=production without METRICS_TOKEN) the route is not registered at
 * all: /metrics is an unknown path (404, like /admin/queues without ADMIN_TOKEN) and nothing reads the gauges.
 */
@Module({})
export class ApiMetricsModule {
  static forRoot(config: AppConfig): DynamicModule {
    if (!config.metrics.api) return { module: ApiMetricsModule, providers: [MetricsOffNotice] };
    return { module: ApiMetricsModule, controllers: [MetricsController], providers: [MetricsRepository, ScrapeGauges, MetricsTokenGuard] };
  }
}
