import { Module } from '@nestjs/common';
import { LoyaltyMembersController } from './loyalty-members.controller.js';
import { MembersModule } from './members.module.js';
import { ProgramMemberAnswers } from './program-member-answers.service.js';
import { ProgramMembersController } from './program-members.controller.js';

/**
 * The member routes (v2 members, the v1 member routes of the SDK). The v2 cards' `next_activation` is asked
 * through `CardActivations`, which the API's composition binds; the worker, which has no routes, needs none.
 */
@Module({
  imports: [MembersModule],
  controllers: [LoyaltyMembersController, ProgramMembersController],
  providers: [ProgramMemberAnswers],
})
export class MembersApiModule {}
