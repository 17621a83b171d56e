import { Module } from '@nestjs/common';
import { CardsModule } from '../cards/cards.module.js';
import { DatabaseKitModule } from '../database/database-kit.module.js';
import { workerFeature } from '../queue/worker-feature.js';
import { CampaignsModule } from './campaigns.module.js';
import { CardGenerationProcessor } from './card-generation.processor.js';
import { CardGenerationService } from './card-generation.service.js';
import { CardGenerationSweep } from './card-generation.sweep.js';
import { CardTurnRepository } from './card-turn.repository.js';

/** The worker's side of campaigns: card generation (its jobs and its sweep). */
@Module({})
export class CampaignsWorkerModule {}

export const CampaignsWorker = workerFeature(CampaignsWorkerModule, {
  imports: [CampaignsModule, CardsModule, DatabaseKitModule],
  providers: [CardGenerationService, CardTurnRepository, CardGenerationSweep],
  processors: [CardGenerationProcessor],
});
