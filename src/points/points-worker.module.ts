import { Module } from '@nestjs/common';
import { AsyncActionsModule } from '../async-actions/async-actions.module.js';
import { CampaignsModule } from '../campaigns/campaigns.module.js';
import { CardsModule } from '../cards/cards.module.js';
import { DatabaseKitModule } from '../database/database-kit.module.js';
import { MembersModule } from '../members/members.module.js';
import { workerFeature } from '../queue/worker-feature.js';
import { PendingPointsProcessor } from './pending/pending-points.processor.js';
import { PendingPointsSweep } from './pending/pending-points.sweep.js';
import { PointsModule } from './points.module.js';
import { CampaignDeletionService } from './campaign-deletion/campaign-deletion.service.js';
import { CampaignDeletionSweep } from './campaign-deletion/campaign-deletion.sweep.js';
import { ExpiryRepository } from './buckets/expiry.repository.js';
import { ExpiryService } from './buckets/expiry.service.js';
import { PointsExpirySweep } from './buckets/points-expiry.sweep.js';

/**
 * The worker's side of points: the activation jobs of pending entries (one per due-moment cohort) and their sweep; the expiry of
 * point buckets; forced campaign deletions (their cards' history is points').
 */
@Module({})
export class PointsWorkerModule {}

export const PointsWorker = workerFeature(PointsWorkerModule, {
  imports: [PointsModule, CardsModule, DatabaseKitModule, AsyncActionsModule, CampaignsModule, MembersModule],
  providers: [PendingPointsSweep, ExpiryRepository, ExpiryService, PointsExpirySweep, CampaignDeletionService, CampaignDeletionSweep],
  processors: [PendingPointsProcessor],
});
