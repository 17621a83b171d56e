import { Module } from '@nestjs/common';
import { CampaignsModule } from '../campaigns/campaigns.module.js';
import { PaginationModule } from '../common/pagination/pagination.module.js';
import { CustomersModule } from '../customers/customers.module.js';
import { LoyaltyCardRepository } from './loyalty-card.repository.js';
import { LoyaltyMembersController } from './loyalty-members.controller.js';
import { MemberRepository } from './member.repository.js';
import { MembersService } from './members.service.js';
import { ProgramMembersController } from './program-members.controller.js';

/** Program members and their loyalty cards: v2 member resources and the v1 member routes of the SDK. */
@Module({
  imports: [CampaignsModule, CustomersModule, PaginationModule],
  controllers: [LoyaltyMembersController, ProgramMembersController],
  providers: [MembersService, MemberRepository, LoyaltyCardRepository],
  exports: [MembersService],
})
export class MembersModule {}
