import { Injectable } from '@nestjs/common';
import type { ProjectContext } from '../auth/auth.service.js';
import { CardActivations } from './card-activations.js';
import { type CreateMemberDto, type MemberWithCardsDto, toMemberWithCards } from './dto/member.dto.js';
import { type MemberWithCards, MembersService } from './members.service.js';

/**
 * The v2 answers that carry a member's cards. API only (MembersApiModule): a card's `next_activation` is asked
 * of the points module through the composition (`CardActivations`).
 */
@Injectable()
export class ProgramMemberAnswers {
  constructor(
    private readonly members: MembersService,
    private readonly activations: CardActivations,
  ) {}

  async create(project: ProjectContext, programId: string, dto: CreateMemberDto): Promise<MemberWithCardsDto> {
    return this.view(project, await this.members.create(project, programId, dto));
  }

  async get(project: ProjectContext, programId: string, memberId: string): Promise<MemberWithCardsDto> {
    return this.view(project, await this.members.get(project, programId, memberId));
  }

  private async view(project: ProjectContext, { member, cards }: MemberWithCards): Promise<MemberWithCardsDto> {
    return toMemberWithCards(member, cards, await this.activations.nextActivations(project.id, cards.map((card) => card.id)));
  }
}
