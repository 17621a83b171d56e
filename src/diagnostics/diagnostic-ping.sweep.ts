import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';
import type { SweepDefinition } from '../queue/sweeps.js';
import { WorkerSweep } from '../queue/worker-feature.js';
import { DIAGNOSTIC_PING_MAX_REQUEUES } from './diagnostic-ping.entity.js';
import { DiagnosticsService } from './diagnostics.service.js';

/**
 * Pings one run takes up (an equal share per project that has some), the longest-waiting first: a run never
 * sends Redis an unbounded batch.
 */
export const DIAGNOSTIC_PING_SWEEP_BATCH = 1_000;

/**
 * A ping enqueued (by its request, or by the sweep) less than this ago is left alone: a new one to its
 * request's enqueue, one the sweep took up to the next runs.
 */
export const DIAGNOSTIC_PING_SWEEP_MIN_AGE_MS = 5_000;

/**
 * The worker's sweep of QUEUED pings: Redis replicates asynchronously, so a job the old master acknowledged
 * can be lost in a failover while its row stays QUEUED. The row is the truth; the sweep enqueues its job again
 * when none is left to run (same job id, and markDone is conditional, so a ping completes once), and gives a
 * ping up after DIAGNOSTIC_PING_MAX_REQUEUES, so that pings whose jobs keep failing do not stay QUEUED forever.
 */
@Injectable()
@WorkerSweep()
export class DiagnosticPingSweep implements SweepDefinition {
  readonly name = 'diagnostic-pings';
  readonly everyMs: number;

  constructor(
    config: AppConfig,
    private readonly diagnostics: DiagnosticsService,
  ) {
    this.everyMs = config.sweeps.diagnosticPingsMs;
  }

  run(): Promise<number> {
    return this.diagnostics.requeueStale(DIAGNOSTIC_PING_SWEEP_MIN_AGE_MS, DIAGNOSTIC_PING_SWEEP_BATCH, DIAGNOSTIC_PING_MAX_REQUEUES);
  }
}
