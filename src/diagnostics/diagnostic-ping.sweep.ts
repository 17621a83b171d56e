import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';
import type { SweepDefinition } from '../queue/sweeps.js';
import { WorkerSweep } from '../queue/worker-feature.js';
import { DiagnosticsService } from './diagnostics.service.js';

/** Pings one run re-enqueues, oldest first: a run never sends Redis an unbounded bulk add. */
export const DIAGNOSTIC_PING_SWEEP_BATCH = 1_000;

/** A ping younger than this is left to the enqueue of the request that created it. */
export const DIAGNOSTIC_PING_SWEEP_MIN_AGE_MS = 5_000;

/**
 * The worker's sweep of QUEUED pings: Redis replicates asynchronously, so a job the old master acknowledged
 * can be lost in a failover while its row stays QUEUED. The row is the truth; the sweep enqueues its job again
 * (same job id, so an existing job is not doubled, and markDone is conditional, so a ping completes once).
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
    return this.diagnostics.requeueStale(DIAGNOSTIC_PING_SWEEP_MIN_AGE_MS, DIAGNOSTIC_PING_SWEEP_BATCH);
  }
}
