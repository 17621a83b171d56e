import { Module } from '@nestjs/common';
import { workerFeature } from '../queue/worker-feature.js';
import { CampaignsModule } from './campaigns.module.js';
import { CardGenerationProcessor } from './card-generation.processor.js';
import { CardGenerationService } from './card-generation.service.js';
import { CardGenerationSweep } from './card-generation.sweep.js';
import { CardTurnRepository } from './card-turn.repository.js';
import { VoucherRepository } from './voucher.repository.js';

/** The worker's side of campaigns: card generation (its jobs and its sweep). */
@Module({})
export class CampaignsWorkerModule {}

export const CampaignsWorker = workerFeature(CampaignsWorkerModule, {
  imports: [CampaignsModule],
  providers: [CardGenerationService, CardTurnRepository, VoucherRepository, CardGenerationSweep],
  processors: [CardGenerationProcessor],
});
