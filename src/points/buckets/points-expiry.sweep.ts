import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { internalCause } from '../../events/recording/event-recording.js';
import type { SweepDefinition } from '../../queue/sweeps.js';
import { WorkerSweep } from '../../queue/worker-feature.js';
import { ExpiryService } from './expiry.service.js';

/** Due buckets one expiry transaction takes. */
export const POINTS_EXPIRY_BATCH = 1_000;

/**
 * The worker's point expiry: every POINTS_EXPIRY_SWEEP_MS, the buckets whose last day is over. A sweep
 * rather than a job per bucket: the moment is in PostgreSQL (`expire_after`, indexed), so a flushed Redis
 * or a restart loses nothing, and a million buckets due at one midnight cost no million jobs.
 */
@Injectable()
@WorkerSweep()
export class PointsExpirySweep implements SweepDefinition {
  readonly name = 'points-expiry';
  readonly everyMs: number;

  constructor(
    config: AppConfig,
    private readonly expiry: ExpiryService,
  ) {
    this.everyMs = config.sweeps.pointsExpiryMs;
  }

  run(): Promise<number> {
    return this.expiry.sweep(POINTS_EXPIRY_BATCH, internalCause());
  }
}
