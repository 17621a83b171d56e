import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';
import type { SweepDefinition } from '../queue/sweeps.js';
import { WorkerSweep } from '../queue/worker-feature.js';
import { AsyncActionsService } from './async-actions.service.js';

/** Old actions one statement deletes: a run never holds many row locks nor runs one long statement. */
export const ASYNC_ACTIONS_SWEEP_BATCH = 1_000;

/** The worker's sweep of async actions older than ASYNC_ACTION_TTL_MS. */
@Injectable()
@WorkerSweep()
export class AsyncActionsSweep implements SweepDefinition {
  readonly name = 'async-actions';
  readonly everyMs: number;

  constructor(
    config: AppConfig,
    private readonly actions: AsyncActionsService,
  ) {
    this.everyMs = config.sweeps.asyncActionsMs;
  }

  run(): Promise<number> {
    return this.actions.deleteExpired(ASYNC_ACTIONS_SWEEP_BATCH);
  }
}
