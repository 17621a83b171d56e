import { Module } from '@nestjs/common';
import { AsyncActionsModule } from '../async-actions/async-actions.module.js';
import { PaginationModule } from '../common/pagination/pagination.module.js';
import { DatabaseKitModule } from '../database/database-kit.module.js';
import { CampaignDeletionRepository } from './campaign-deletion.repository.js';
import { CampaignRepository } from './campaign.repository.js';
import { CampaignsService } from './campaigns.service.js';
import { CategoryRepository } from './category.repository.js';
import { LoyaltiesController } from './loyalties.controller.js';
import { LoyaltyProgramRepository } from './loyalty-program.repository.js';
import { LoyaltyProgramsController } from './loyalty-programs.controller.js';
import { LoyaltyProgramsService } from './loyalty-programs.service.js';

/**
 * Loyalty campaigns, their programs and categories. Their cards are generated in the worker (CampaignsWorkerModule)
 * and inserted through CardsModule. A deletion is recorded as an async action through AsyncActionsModule; a
 * forced one is carried out by the worker (CampaignDeletionRepository here, the batches in points/).
 */
@Module({
  imports: [PaginationModule, DatabaseKitModule, AsyncActionsModule],
  controllers: [LoyaltiesController, LoyaltyProgramsController],
  providers: [
    CampaignsService,
    LoyaltyProgramsService,
    CampaignRepository,
    CampaignDeletionRepository,
    CategoryRepository,
    LoyaltyProgramRepository,
  ],
  exports: [CampaignsService, LoyaltyProgramsService, CampaignRepository, CampaignDeletionRepository],
})
export class CampaignsModule {}
