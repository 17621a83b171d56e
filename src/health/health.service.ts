import { Injectable } from '@nestjs/common';
import { HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { ApiError } from '../common/errors/api-error.js';
import { JobQueueService } from '../queue/job-queue.service.js';
import type { ReadinessDto } from './dto/health.dto.js';
import { ShutdownState } from './shutdown-state.js';

const CHECK_TIMEOUT_MS = 1_500;

/**
 * Readiness: PostgreSQL decides (no request is served without it). Redis is checked and reported, but a Redis
 * that is down or failing over does not take the replica out: most routes work without it (those that need it
 * answer 503 themselves), and it is the same Redis for every replica, so failing readiness would take them all out
 * at once. A draining process (SIGTERM, SHUTDOWN_DRAIN_MS) is not ready.
 */
@Injectable()
export class HealthService {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly jobs: JobQueueService,
    private readonly shutdown: ShutdownState,
  ) {}

  async readiness(): Promise<ReadinessDto> {
    if (this.shutdown.draining) throw ApiError.serviceUnavailable('Not ready: shutting down');
    const [postgres, redis] = await Promise.all([this.postgres(), this.redis()]);
    if (postgres === 'down') throw ApiError.serviceUnavailable('Not ready: postgres unreachable');
    return { status: 'ok', checks: { postgres, redis } };
  }

  private async postgres(): Promise<'up' | 'down'> {
    try {
      await this.health.check([() => this.db.pingCheck('postgres').withTimeout(CHECK_TIMEOUT_MS)]);
      return 'up';
    } catch {
      return 'down';
    }
  }

  private async redis(): Promise<'up' | 'down'> {
    try {
      await withTimeout(this.jobs.ping(), CHECK_TIMEOUT_MS);
      return 'up';
    } catch {
      return 'down';
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
