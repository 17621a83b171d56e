import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';
import type { SweepDefinition } from '../queue/sweeps.js';
import { WorkerSweep } from '../queue/worker-feature.js';
import { IdempotencyService } from './idempotency.service.js';

/** Expired keys one statement deletes: a run never holds many row locks nor runs one long statement. */
export const IDEMPOTENCY_SWEEP_BATCH = 1_000;

/** The worker's idempotency sweep: deletes the keys past IDEMPOTENCY_TTL_MS. */
@Injectable()
@WorkerSweep()
export class IdempotencySweep implements SweepDefinition {
  readonly name = 'idempotency-keys';
  readonly everyMs: number;

  constructor(
    config: AppConfig,
    private readonly idempotency: IdempotencyService,
  ) {
    this.everyMs = config.sweeps.idempotencyMs;
  }

  run(): Promise<number> {
    return this.idempotency.deleteExpired(IDEMPOTENCY_SWEEP_BATCH);
  }
}
