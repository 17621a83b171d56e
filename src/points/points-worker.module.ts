import { Module } from '@nestjs/common';
import { CardsModule } from '../cards/cards.module.js';
import { DatabaseKitModule } from '../database/database-kit.module.js';
import { workerFeature } from '../queue/worker-feature.js';
import { ActivationBatcher } from './pending/activation-batcher.js';
import { PendingPointsProcessor } from './pending/pending-points.processor.js';
import { PendingPointsSweep } from './pending/pending-points.sweep.js';
import { PointsModule } from './points.module.js';
import { ExpiryRepository } from './buckets/expiry.repository.js';
import { ExpiryService } from './buckets/expiry.service.js';
import { PointsExpirySweep } from './buckets/points-expiry.sweep.js';

/** The worker's side of points: the activation jobs of pending entries (batched) and their sweep; the expiry of point buckets. */
@Module({})
export class PointsWorkerModule {}

export const PointsWorker = workerFeature(PointsWorkerModule, {
  imports: [PointsModule, CardsModule, DatabaseKitModule],
  providers: [ActivationBatcher, PendingPointsSweep, ExpiryRepository, ExpiryService, PointsExpirySweep],
  processors: [PendingPointsProcessor],
});
