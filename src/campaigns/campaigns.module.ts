import { Module } from '@nestjs/common';
import { PaginationModule } from '../common/pagination/pagination.module.js';
import { CampaignRepository } from './campaign.repository.js';
import { CampaignsService } from './campaigns.service.js';
import { CategoryRepository } from './category.repository.js';
import { LoyaltiesController } from './loyalties.controller.js';
import { LoyaltyProgramRepository } from './loyalty-program.repository.js';
import { LoyaltyProgramsController } from './loyalty-programs.controller.js';
import { LoyaltyProgramsService } from './loyalty-programs.service.js';

/** Loyalty campaigns, their programs and categories. Their cards are generated in the worker (CampaignsWorkerModule) and inserted through CardsModule. */
@Module({
  imports: [PaginationModule],
  controllers: [LoyaltiesController, LoyaltyProgramsController],
  providers: [
    CampaignsService,
    LoyaltyProgramsService,
    CampaignRepository,
    CategoryRepository,
    LoyaltyProgramRepository,
  ],
  exports: [CampaignsService, LoyaltyProgramsService, CampaignRepository],
})
export class CampaignsModule {}
