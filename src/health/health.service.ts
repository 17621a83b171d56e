import { Injectable } from '@nestjs/common';
import { HealthCheckService, HealthIndicatorService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { ApiError } from '../common/errors/api-error.js';
import { JobQueueService } from '../queue/job-queue.service.js';
import type { ReadinessDto } from './dto/health.dto.js';

const CHECK_TIMEOUT_MS = 1_500;

@Injectable()
export class HealthService {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly jobs: JobQueueService,
  ) {}

  async readiness(): Promise<ReadinessDto> {
    try {
      const result = await this.health.check([
        () => this.db.pingCheck('postgres').withTimeout(CHECK_TIMEOUT_MS),
        () => this.redis(),
      ]);
      return { status: 'ok', checks: Object.fromEntries(Object.keys(result.details).map((name) => [name, 'up' as const])) };
    } catch (error) {
      const details = (error as { response?: { error?: Record<string, unknown> } }).response?.error ?? {};
      const down = Object.keys(details);
      throw ApiError.serviceUnavailable(`Not ready: ${down.length ? down.join(', ') : 'unknown'} unreachable`);
    }
  }

  private async redis() {
    const indicator = this.indicators.check('redis');
    try {
      await withTimeout(this.jobs.ping(), CHECK_TIMEOUT_MS);
      return indicator.up();
    } catch (error) {
      return indicator.down({ message: (error as Error).message });
    }
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
