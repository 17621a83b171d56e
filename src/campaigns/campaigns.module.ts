import { Module } from '@nestjs/common';
import { CardsModule } from '../cards/cards.module.js';
import { PaginationModule } from '../common/pagination/pagination.module.js';
import { DatabaseKitModule } from '../database/database-kit.module.js';
import { CampaignRepository } from './campaign.repository.js';
import { CampaignsService } from './campaigns.service.js';
import { CardGenerationService } from './card-generation.service.js';
import { CardTurnRepository } from './card-turn.repository.js';
import { CategoryRepository } from './category.repository.js';
import { LoyaltiesController } from './loyalties.controller.js';
import { LoyaltyProgramRepository } from './loyalty-program.repository.js';
import { LoyaltyProgramsController } from './loyalty-programs.controller.js';
import { LoyaltyProgramsService } from './loyalty-programs.service.js';

/** Loyalty campaigns, their programs and categories, and the generation of their cards (inserted through CardsModule). The processor is registered by WorkerModule. */
@Module({
  imports: [CardsModule, DatabaseKitModule, PaginationModule],
  controllers: [LoyaltiesController, LoyaltyProgramsController],
  providers: [
    CampaignsService,
    CardGenerationService,
    LoyaltyProgramsService,
    CampaignRepository,
    CardTurnRepository,
    CategoryRepository,
    LoyaltyProgramRepository,
  ],
  exports: [CampaignsService, CardGenerationService, LoyaltyProgramsService],
})
export class CampaignsModule {}
