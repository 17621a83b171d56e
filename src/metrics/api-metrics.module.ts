import { type DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { RateLimitModule } from '../rate-limit/rate-limit.module.js';
import { MetricsController } from './metrics.controller.js';
import { MetricsRepository } from './metrics.repository.js';
import { MetricsTokenGuard } from './metrics-token.guard.js';
import { ScrapeGauges } from './scrape-gauges.js';

/**
 * GET /metrics of the API process. Its gauges read Redis through the global QueueModule and PostgreSQL through
 * its own repository, so it imports no feature module (and none imports it). The request histogram is fed by
 * httpMetricsMiddleware, which createApiApp installs before every other middleware, whether or not this
 * module serves the endpoint.
 *
 * With `config.metrics.served` false (neither METRICS_TOKEN nor METRICS_PUBLIC=true) the route is not
 * registered at all: /metrics is an unknown path (404, like /admin/queues without ADMIN_TOKEN) and nothing
 * reads the gauges; the API's ready line says so. Wrong tokens count as failed authentications of the
 * caller's address (AuthFailureLimiter, when AUTH_FAILURE_LIMIT is on).
 */
@Module({})
export class ApiMetricsModule {
  static forRoot(config: AppConfig): DynamicModule {
    if (!config.metrics.served) return { module: ApiMetricsModule };
    const limited = config.metrics.token !== null && config.authFailureLimit > 0;
    return {
      module: ApiMetricsModule,
      imports: limited ? [RateLimitModule] : [],
      controllers: [MetricsController],
      providers: [MetricsRepository, ScrapeGauges, MetricsTokenGuard],
    };
  }
}
