import { Module } from '@nestjs/common';
import { workerFeature } from '../queue/worker-feature.js';
import { ActivationBatcher } from './pending/activation-batcher.js';
import { PendingPointsProcessor } from './pending/pending-points.processor.js';
import { PendingPointsSweep } from './pending/pending-points.sweep.js';
import { PointsModule } from './points.module.js';

/** The worker's side of points: the activation jobs of pending entries (batched) and their sweep. */
@Module({})
export class PointsWorkerModule {}

export const PointsWorker = workerFeature(PointsWorkerModule, {
  imports: [PointsModule],
  providers: [ActivationBatcher, PendingPointsSweep],
  processors: [PendingPointsProcessor],
});
