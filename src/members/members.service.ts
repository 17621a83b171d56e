import { Injectable } from '@nestjs/common';
import type { ProjectContext } from '../auth/auth.service.js';
import type { Campaign } from '../campaigns/campaign.entity.js';
import { CampaignsService } from '../campaigns/campaigns.service.js';
import { CodeGenerator } from '../campaigns/code-config.js';
import { programStatus } from '../campaigns/dto/loyalty-program.dto.js';
import { LoyaltyProgramsService } from '../campaigns/loyalty-programs.service.js';
import type { LoyaltyCard } from '../cards/card.entity.js';
import { CardIssueRepository } from '../cards/card-issue.repository.js';
import { ApiError } from '../common/errors/api-error.js';
import { base62Id, hexId } from '../common/ids.js';
import { CursorService } from '../common/pagination/cursor.service.js';
import type { Customer } from '../customers/customer.entity.js';
import { CustomersService } from '../customers/customers.service.js';
import type { Tx } from '../database/transaction-runner.js';
import { type CreateLoyaltyMemberDto, type ListLoyaltyMembersQueryDto, type LoyaltyMemberDto, type LoyaltyMemberListDto, toLoyaltyMember } from './dto/loyalty-member.dto.js';
import {
  type CreateMemberDto,
  type ListMembersQueryDto,
  MEMBERS_CURSOR_PREFIX,
  type MemberDto,
  type MemberListDto,
  toMemberDto,
  type UpdateMemberDto,
} from './dto/member.dto.js';
import { EnrolmentService, type EnrolResult } from './enrolment.service.js';
import { type CardRef, MemberCardRepository } from './member-card.repository.js';
import { planMemberList, type SortKey } from './member-list-query.js';
import type { Member, MemberStatus } from './member.entity.js';
import { MemberRepository, type MemberRow } from './member.repository.js';

export const DEFAULT_LIMIT = 10;

interface Enrolment {
  programId: string;
  campaign: Campaign;
  customer: Customer;
  status: 'ACTIVE' | 'INACTIVE';
  metadata: Record<string, unknown>;
  code?: string;
}

/** A v2 member and its cards, before the answer adds what other features know of the cards. */
export interface MemberWithCards {
  member: Member;
  cards: LoyaltyCard[];
}

/** Program membership: enrolment with a loyalty card, the v2 member resources and the v1 card views. */
@Injectable()
export class MembersService {
  constructor(
    private readonly members: MemberRepository,
    private readonly cards: MemberCardRepository,
    private readonly issued: CardIssueRepository,
    private readonly enrolment: EnrolmentService,
    private readonly programs: LoyaltyProgramsService,
    private readonly campaigns: CampaignsService,
    private readonly customers: CustomersService,
    private readonly cursors: CursorService,
  ) {}

  async create(project: ProjectContext, programId: string, dto: CreateMemberDto): Promise<MemberWithCards> {
    const program = await this.programs.find(project, programId);
    this.requireActive(program.campaign as Campaign, programId);
    const { type, customer_id: customerId, customer_source_id: sourceId } = dto.customer_identification;
    const customer =
      type === 'customer_id' ? await this.customers.requireById(project, customerId as string) : await this.customers.ensureBySourceId(project, sourceId as string);
    const { member, card } = await this.enrol(project, {
      programId: program.id,
      campaign: program.campaign as Campaign,
      customer,
      status: dto.status ?? 'ACTIVE',
      metadata: dto.metadata ?? {},
    });
    return { member, cards: [card] };
  }

  async get(project: ProjectContext, programId: string, memberId: string): Promise<MemberWithCards> {
    const member = await this.members.find(project.id, programId, memberId);
    if (!member || member.status === 'DELETED') throw ApiError.notFound('member', memberId);
    return { member, cards: await this.issued.ofMember(member.id) };
  }

  async update(project: ProjectContext, programId: string, memberId: string, dto: UpdateMemberDto): Promise<MemberDto> {
    const member = await this.members.updateMetadata(project.id, programId, memberId, dto.metadata);
    if (!member) throw ApiError.notFound('member', memberId);
    return toMemberDto(member);
  }

  /** activate / deactivate / delete: idempotent for a live member; a deleted member is gone (404). */
  async setStatus(project: ProjectContext, programId: string, memberId: string, status: MemberStatus): Promise<MemberDto> {
    const member = await this.members.setStatus(project.id, programId, memberId, status);
    if (!member) throw ApiError.notFound('member', memberId);
    return toMemberDto(member);
  }

  /** The v2 list: keyset pages in the requested order, with filters; the cursor is bound to both. */
  async list(project: ProjectContext, programId: string, query: ListMembersQueryDto): Promise<MemberListDto> {
    const plan = planMemberList(programId, query.order, query.filters);
    const scope = `${project.id}|members|${plan.canonical}`;
    const after = query.cursor !== undefined ? await this.cursors.decode(MEMBERS_CURSOR_PREFIX, query.cursor, scope) : null;
    const limit = query.limit ?? DEFAULT_LIMIT;
    const rows = await this.members.list(project.id, programId, plan.sort, plan.filters, after, limit + 1);
    if (!rows) throw ApiError.notFound('program', programId);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    const cursor = rows.length > limit && last ? await this.cursors.encode(MEMBERS_CURSOR_PREFIX, scope, position(last, plan.sort)) : null;
    return { data: page.map(toMemberDto), cursor, object: 'list' };
  }

  /** POST /v1/loyalties/{campaignId}/members: enrols the customer and answers with the card. */
  async createV1(project: ProjectContext, campaignIdOrName: string, dto: CreateLoyaltyMemberDto): Promise<LoyaltyMemberDto> {
    const { campaign, programId } = await this.campaigns.find(project, campaignIdOrName);
    this.requireActive(campaign, programId);
    const customer = await this.customers.resolve(project, dto.customer);
    const { card } = await this.enrol(project, { programId, campaign, customer, status: 'ACTIVE', metadata: dto.metadata ?? {}, code: dto.voucher });
    return this.cardView(project, card.id);
  }

  async getV1(project: ProjectContext, campaignIdOrName: string | null, code: string): Promise<LoyaltyMemberDto> {
    return (await this.getV1WithCampaign(project, campaignIdOrName, code)).card;
  }

  /**
   * `getV1`, with the card's campaign as stored (read with the card: what a redemption checks before it spends).
   * Codes are unique in a project, so the card is read by its code first, with its campaign: when that is the
   * campaign named by id, nothing else is read. Otherwise (a name, another campaign, no card) the campaign is
   * looked up as before, so that the 404 says which one is missing.
   */
  async getV1WithCampaign(project: ProjectContext, campaignIdOrName: string | null, code: string): Promise<{ card: LoyaltyMemberDto; campaign: Campaign }> {
    const [found] = await this.getV1WithCampaignAll(project, [{ campaignIdOrName, code }]);
    if (found.status === 'rejected') throw found.reason;
    return found.value;
  }

  /**
   * Cards by code, each in the campaign named (by id or name; null: any), read by one statement (a redemption
   * batch's); each its card and campaign, or its 404. A campaign named otherwise than by the card's own id is read
   * for that request alone, so a name or another campaign answers as before.
   */
  async getV1WithCampaignAll(project: ProjectContext, requests: { campaignIdOrName: string | null; code: string }[]): Promise<PromiseSettledResult<{ card: LoyaltyMemberDto; campaign: Campaign }>[]> {
    const cards = await this.cards.findByCodes(project.id, requests.map((r) => r.code));
    return Promise.allSettled(
      requests.map(async ({ campaignIdOrName, code }) => {
        const card = cards.get(code);
        if (campaignIdOrName !== null && card?.campaign.id !== campaignIdOrName) {
          const { campaign } = await this.campaigns.find(project, campaignIdOrName);
          if (card?.campaignId !== campaign.id) throw ApiError.notFound('voucher', code);
        }
        if (!card) throw ApiError.notFound('voucher', code);
        return { card: toLoyaltyMember(card), campaign: card.campaign };
      }),
    );
  }

  async listV1(project: ProjectContext, campaignIdOrName: string, query: ListLoyaltyMembersQueryDto): Promise<LoyaltyMemberListDto> {
    const { campaign } = await this.campaigns.find(project, campaignIdOrName);
    const limit = query.limit ?? DEFAULT_LIMIT;
    let holderIds: string[] | undefined;
    if (query.customer !== undefined) holderIds = [(await this.customers.findIdOrSourceId(project, query.customer)) ?? ''];
    const { rows, total } = await this.cards.list(project.id, campaign.id, {
      limit,
      offset: ((query.page ?? 1) - 1) * limit,
      order: query.order ?? '-created_at',
      holderIds,
      code: query.code,
      createdBefore: query.created_at?.before,
      createdAfter: query.created_at?.after,
      updatedBefore: query.updated_at?.before,
      updatedAfter: query.updated_at?.after,
    });
    return { object: 'list', data_ref: 'vouchers', vouchers: rows.map(toLoyaltyMember), total };
  }

  /**
   * Earning's auto-join (a campaign with `auto_join`): enrols the customer, ACTIVE, and returns the card id;
   * null when it cannot join (the program is not ACTIVE, it joined a moment ago, or there is no card to give).
   */
  async autoJoin(project: ProjectContext, campaignId: string, customerOrId: Customer | string): Promise<string | null> {
    const { campaign, programId } = await this.campaigns.find(project, campaignId);
    if (programStatus(campaign) !== 'ACTIVE') return null;
    const customer = typeof customerOrId === 'string' ? await this.customers.requireById(project, customerOrId) : customerOrId;
    try {
      const { card } = await this.enrol(project, { programId, campaign, customer, status: 'ACTIVE', metadata: {} });
      return card.id;
    } catch (error) {
      if (error instanceof ApiError && error.status < 500) return null;
      throw error;
    }
  }

  /** The customer's cards in these campaigns where it is an ACTIVE member (the cards that earn), by campaign. */
  activeCardsOf(projectId: string, customerId: string, campaignIds: string[]): Promise<Map<string, string>> {
    return this.cards.activeCardsOf(projectId, customerId, campaignIds);
  }

  /** `activeCardsOf` for several customers at once: per customer, by campaign. */
  activeCardsOfAll(projectId: string, customerIds: string[], campaignIds: string[]): Promise<Map<string, Map<string, string>>> {
    return this.cards.activeCardsOfAll(projectId, customerIds, campaignIds);
  }

  /** Whether the customer is a live (ACTIVE or INACTIVE) member of the campaign's program. */
  hasLiveMembership(projectId: string, customerId: string, campaignId: string): Promise<boolean> {
    return this.cards.hasLiveMembership(projectId, customerId, campaignId);
  }

  /** A forced campaign deletion's batch, in its transaction: the members whose cards it deleted, once they hold none. */
  deleteCardless(tx: Tx, memberIds: string[]): Promise<void> {
    return this.members.deleteCardless(tx, memberIds);
  }

  /** A card held by a live member of a live campaign, by code; in one campaign when given. */
  findPublishedCard(projectId: string, code: string, campaignId?: string): Promise<CardRef | null> {
    return this.cards.findPublished(projectId, code, campaignId);
  }

  private requireActive(campaign: Campaign, programId: string): void {
    if (programStatus(campaign) !== 'ACTIVE') {
      throw new ApiError(423, 'non_active_program', 'Invalid program status', {
        details: 'Cannot create member when program status is not ACTIVE',
        resourceId: programId,
        resourceType: 'program',
      });
    }
  }

  private async enrol(project: ProjectContext, enrolment: Enrolment): Promise<{ member: Member; card: LoyaltyCard }> {
    const { campaign, customer } = enrolment;
    const codes = new CodeGenerator(campaign.voucher.code_config);
    const result = await this.enrolment.enrol(
      { id: hexId('lmbr_'), projectId: project.id, programId: enrolment.programId, customerId: customer.id, status: enrolment.status, metadata: enrolment.metadata },
      {
        campaignId: campaign.id,
        code: enrolment.code,
        makeCard:
          campaign.type === 'AUTO_UPDATE'
            ? { initialPoints: campaign.voucher.loyalty_card.points, newId: () => base62Id('v_', 32), newCode: () => codes.next() }
            : null,
      },
    );
    if (result.ok) return result;
    throw enrolmentError(result, enrolment);
  }

  private async cardView(project: ProjectContext, cardId: string): Promise<LoyaltyMemberDto> {
    const card = await this.cards.findById(project.id, cardId);
    if (!card) throw ApiError.notFound('voucher', cardId);
    return toLoyaltyMember(card);
  }
}

function enrolmentError(result: Extract<EnrolResult, { ok: false }>, { programId, campaign, customer, code }: Enrolment): ApiError {
  switch (result.reason) {
    case 'member_exists':
      return new ApiError(409, 'member_already_exists', 'Member already exists', {
        details: `Customer '${customer.id}' already is a member of program '${programId}'`,
        resourceId: customer.id,
        resourceType: 'customer',
      });
    case 'code_not_found':
      return ApiError.notFound('voucher', code as string);
    case 'code_published':
      return new ApiError(400, 'voucher_already_published', 'Voucher already published', {
        details: `Voucher '${result.cardId}' has already been published`,
        resourceId: result.cardId,
        resourceType: 'voucher',
      });
    case 'no_free_card':
      return noVoucher(`Campaign ${campaign.id} is STATIC and has no free loyalty card left; generate more cards or make the campaign AUTO_UPDATE`, campaign.id);
    case 'code_space_exhausted':
      return noVoucher(`Couldn't create new vouchers for publication: the code_config of campaign ${campaign.id} has no unused code left`, campaign.id);
  }
}

function noVoucher(details: string, campaignId: string): ApiError {
  return new ApiError(400, 'no_voucher_suitable_for_publication', "Couldn't find any voucher suitable for publication", {
    details,
    resourceId: campaignId,
    resourceType: 'campaign',
  });
}

function position(row: MemberRow, sort: SortKey[]): unknown[] {
  return sort.map((key) => (key.column === 'created_at' ? row.created_at.toISOString() : row[key.column]));
}
