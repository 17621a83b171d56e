import { Module } from '@nestjs/common';
import { PaginationModule } from '../common/pagination/pagination.module.js';
import { CampaignRepository } from './campaign.repository.js';
import { CampaignsService } from './campaigns.service.js';
import { CardGenerationService } from './card-generation.service.js';
import { CardTurnRepository } from './card-turn.repository.js';
import { CategoryRepository } from './category.repository.js';
import { LoyaltiesController } from './loyalties.controller.js';
import { LoyaltyProgramRepository } from './loyalty-program.repository.js';
import { LoyaltyProgramsController } from './loyalty-programs.controller.js';
import { LoyaltyProgramsService } from './loyalty-programs.service.js';
import { VoucherRepository } from './voucher.repository.js';

/** Loyalty campaigns, their programs, categories and cards. The processor is registered by WorkerModule. */
@Module({
  imports: [PaginationModule],
  controllers: [LoyaltiesController, LoyaltyProgramsController],
  providers: [
    CampaignsService,
    CardGenerationService,
    LoyaltyProgramsService,
    CampaignRepository,
    CardTurnRepository,
    CategoryRepository,
    LoyaltyProgramRepository,
    VoucherRepository,
  ],
  exports: [CampaignsService, CardGenerationService, LoyaltyProgramsService],
})
export class CampaignsModule {}
