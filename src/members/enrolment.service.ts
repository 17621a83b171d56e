import { Injectable } from '@nestjs/common';
import { CampaignsService } from '../campaigns/campaigns.service.js';
import type { LoyaltyCard } from '../cards/card.entity.js';
import { type CardHolder, CardIssueRepository } from '../cards/card-issue.repository.js';
import { type Tx, TransactionRunner } from '../database/transaction-runner.js';
import type { Member } from './member.entity.js';
import { MemberRepository, type NewMember } from './member.repository.js';

/** How enrolment finds the member's card. */
export interface CardSource {
  campaignId: string;
  /** A given code must be one of the campaign's free cards. */
  code?: string;
  /** Without a free card, AUTO_UPDATE campaigns make one; STATIC campaigns cannot. */
  makeCard: null | { initialPoints: number; newId: () => string; newCode: () => string };
}

export type EnrolResult =
  | { ok: true; member: Member; card: LoyaltyCard }
  | { ok: false; reason: 'member_exists' | 'no_free_card' | 'code_not_found' | 'code_published' | 'code_space_exhausted'; cardId?: string };

class Rollback extends Error {
  constructor(readonly result: EnrolResult) {
    super('rollback');
  }
}

/** Attempts at a fresh random code before giving up on a crowded code space. */
const NEW_CODE_ATTEMPTS = 10;

/**
 * Member and card in one transaction: the member row (this module), its card published or made (the
 * cards module), and a made card counted by its campaign. The member insert relies on the partial unique
 * index (one live membership per customer and program), the card claim on `FOR UPDATE SKIP LOCKED`, so
 * concurrent enrolments never share a card and never enrol a customer twice; any failure rolls the
 * member back.
 */
@Injectable()
export class EnrolmentService {
  constructor(
    private readonly transactions: TransactionRunner,
    private readonly members: MemberRepository,
    private readonly cards: CardIssueRepository,
    private readonly campaigns: CampaignsService,
  ) {}

  async enrol(member: NewMember, source: CardSource): Promise<EnrolResult> {
    try {
      return await this.transactions.run(async (tx) => {
        if (!(await this.members.insert(tx, member))) throw new Rollback({ ok: false, reason: 'member_exists' });
        const { cardId, made } = await this.assignCard(tx, member, source);
        const card = await this.cards.findById(tx, cardId);
        const row = await this.members.byId(tx, member.id);
        // Last before the commit: the campaign's row stays locked from here to the commit, and every
        // enrolment that makes a card waits for that lock.
        if (made) await this.campaigns.countEnrolmentCard(tx, source.campaignId);
        return { ok: true as const, member: row, card };
      });
    } catch (error) {
      if (error instanceof Rollback) return error.result;
      throw error;
    }
  }

  /** The member's card: a given code, a free card, or (AUTO_UPDATE) a new one, `made`. */
  private async assignCard(tx: Tx, member: NewMember, source: CardSource): Promise<{ cardId: string; made: boolean }> {
    const holder: CardHolder = { memberId: member.id, customerId: member.customerId };
    if (source.code !== undefined) {
      const claimed = await this.cards.publishCode(tx, holder, member.projectId, source.campaignId, source.code);
      if (claimed) return { cardId: claimed, made: false };
      const existing = await this.cards.findByCode(tx, member.projectId, source.campaignId, source.code);
      throw new Rollback({ ok: false, reason: existing ? 'code_published' : 'code_not_found', cardId: existing?.id });
    }
    const free = await this.cards.publishFree(tx, holder, source.campaignId);
    if (free) return { cardId: free, made: false };
    if (!source.makeCard) throw new Rollback({ ok: false, reason: 'no_free_card' });
    for (let attempt = 0; attempt < NEW_CODE_ATTEMPTS; attempt += 1) {
      const card = { id: source.makeCard.newId(), projectId: member.projectId, campaignId: source.campaignId, code: source.makeCard.newCode(), initialPoints: source.makeCard.initialPoints };
      if (await this.cards.createPublished(tx, card, holder)) return { cardId: card.id, made: true };
    }
    throw new Rollback({ ok: false, reason: 'code_space_exhausted' });
  }
}
