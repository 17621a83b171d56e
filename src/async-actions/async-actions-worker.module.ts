import { Module } from '@nestjs/common';
import { workerFeature } from '../queue/worker-feature.js';
import { AsyncActionsModule } from './async-actions.module.js';
import { AsyncActionsSweep } from './async-actions.sweep.js';

/** The worker's side of async actions: the sweep of old ones (no queue: `never` serves none). */
@Module({})
export class AsyncActionsWorkerModule {}

export const AsyncActionsWorker = workerFeature<never>(AsyncActionsWorkerModule, {
  imports: [AsyncActionsModule],
  providers: [AsyncActionsSweep],
  processors: [],
});
