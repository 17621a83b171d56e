import { Module } from '@nestjs/common';
import { CampaignsModule } from '../campaigns/campaigns.module.js';
import { CardsModule } from '../cards/cards.module.js';
import { PaginationModule } from '../common/pagination/pagination.module.js';
import { CustomersModule } from '../customers/customers.module.js';
import { DatabaseKitModule } from '../database/database-kit.module.js';
import { EnrolmentService } from './enrolment.service.js';
import { MemberCardRepository } from './member-card.repository.js';
import { MemberRepository } from './member.repository.js';
import { MembersService } from './members.service.js';

/** Program members and their loyalty cards (what other features ask; the routes are MembersApiModule). */
@Module({
  imports: [CampaignsModule, CardsModule, CustomersModule, DatabaseKitModule, PaginationModule],
  providers: [MembersService, EnrolmentService, MemberRepository, MemberCardRepository],
  exports: [MembersService],
})
export class MembersModule {}
