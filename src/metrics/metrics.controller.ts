import { Controller, Get, Res, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../auth/public.decorator.js';
import { Metrics } from './metrics.js';
import { MetricsTokenGuard } from './metrics-token.guard.js';
import { ScrapeGauges } from './scrape-gauges.js';

/**
 * Prometheus's scrape endpoint (docs/operations.md lists the metrics). Not part of the API contract that the
 * OpenAPI document describes (it answers Prometheus's text format, to Prometheus), so it is left out of it.
 */
@ApiExcludeController()
@Public()
@UseGuards(MetricsTokenGuard)
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: Metrics,
    private readonly gauges: ScrapeGauges,
  ) {}

  @Get()
  async scrape(@Res() res: Response): Promise<void> {
    await this.gauges.refresh();
    const { contentType, body } = await this.metrics.render();
    res.setHeader('Cache-Control', 'no-store');
    res.type(contentType).send(body);
  }
}
