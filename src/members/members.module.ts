import { Module } from '@nestjs/common';
import { CampaignsModule } from '../campaigns/campaigns.module.js';
import { CardsModule } from '../cards/cards.module.js';
import { PaginationModule } from '../common/pagination/pagination.module.js';
import { CustomersModule } from '../customers/customers.module.js';
import { DatabaseKitModule } from '../database/database-kit.module.js';
import { EnrolmentService } from './enrolment.service.js';
import { MemberCardRepository } from './member-card.repository.js';
import { LoyaltyMembersController } from './loyalty-members.controller.js';
import { MemberRepository } from './member.repository.js';
import { MembersService } from './members.service.js';
import { ProgramMembersController } from './program-members.controller.js';

/** Program members and their loyalty cards: v2 member resources and the v1 member routes of the SDK. */
@Module({
  imports: [CampaignsModule, CardsModule, CustomersModule, DatabaseKitModule, PaginationModule],
  controllers: [LoyaltyMembersController, ProgramMembersController],
  providers: [MembersService, EnrolmentService, MemberRepository, MemberCardRepository],
  exports: [MembersService],
})
export class MembersModule {}
