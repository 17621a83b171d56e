import { Module } from '@nestjs/common';
import { workerFeature } from '../queue/worker-feature.js';
import { IdempotencyModule } from './idempotency.module.js';
import { IdempotencySweep } from './idempotency.sweep.js';

/** The worker's side of Idempotency-Key: the sweep of expired keys (no queue: `never` serves none). */
@Module({})
export class IdempotencyWorkerModule {}

export const IdempotencyWorker = workerFeature<never>(IdempotencyWorkerModule, {
  imports: [IdempotencyModule],
  providers: [IdempotencySweep],
  processors: [],
});
