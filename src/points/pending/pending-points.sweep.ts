import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { internalCause } from '../../events/recording/event-recording.js';
import type { SweepDefinition } from '../../queue/sweeps.js';
import { WorkerSweep } from '../../queue/worker-feature.js';
import { ActivationService } from './activation.service.js';

/** Due entries one sweep transaction activates. */
export const PENDING_POINTS_SWEEP_BATCH = 1_000;

/** The worker's pending points sweep: activates the due entries whose job Redis lost or never ran. */
@Injectable()
@WorkerSweep()
export class PendingPointsSweep implements SweepDefinition {
  readonly name = 'pending-points';
  readonly everyMs: number;

  constructor(
    config: AppConfig,
    private readonly activation: ActivationService,
  ) {
    this.everyMs = config.sweeps.pendingPointsMs;
  }

  run(): Promise<number> {
    return this.activation.sweep(PENDING_POINTS_SWEEP_BATCH, internalCause());
  }
}
