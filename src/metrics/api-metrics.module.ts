import { Module } from '@nestjs/common';
import { MetricsController } from './metrics.controller.js';
import { MetricsRepository } from './metrics.repository.js';
import { MetricsTokenGuard } from './metrics-token.guard.js';
import { ScrapeGauges } from './scrape-gauges.js';

/**
 * GET /metrics of the API process. Its gauges read Redis through the global QueueModule and PostgreSQL through
 * its own repository, so it imports no feature module (and none imports it). The request histogram is fed by
 * httpMetricsMiddleware, which createApiApp installs before every other middleware.
 */
@Module({
  controllers: [MetricsController],
  providers: [MetricsRepository, ScrapeGauges, MetricsTokenGuard],
})
export class ApiMetricsModule {}
