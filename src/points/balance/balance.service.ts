import { Injectable } from '@nestjs/common';
import type { ProjectContext } from '../../auth/auth.service.js';
import { CampaignsService } from '../../campaigns/campaigns.service.js';
import { ApiError } from '../../common/errors/api-error.js';
import { CardRepository } from '../../cards/card.repository.js';
import { TransactionRunner } from '../../database/transaction-runner.js';
import { EVENTS, requestCause } from '../../events/recording/event-recording.js';
import { IdempotencyService } from '../../idempotency/idempotency.service.js';
import type { CardRef } from '../../members/member-card.repository.js';
import { MembersService } from '../../members/members.service.js';
import { type BucketExpiry, BucketRepository } from '../buckets/bucket.repository.js';
import { toTransactionDto } from '../ledger/dto/transaction.dto.js';
import { type Movement, PointsExceeded, PointsPosting } from '../ledger/posting.service.js';
import { BalanceEventsRepository } from './balance-events.repository.js';
import {
  type BalanceChangeDto,
  type LoyaltyCardBalanceDto,
  type ListPointsExpirationQueryDto,
  type PointsBucketListDto,
  toPointsBucketDto,
} from './dto/balance.dto.js';

const CARD = EVENTS.CUSTOMER.VOUCHER.LOYALTY_CARD;

/**
 * Points added or removed by hand (a support desk, a returns flow) and the card's buckets. A change is one
 * transaction under the card's lock: one ADDITION or REMOVAL posted (PointsPosting: the card's columns, its
 * POINTS_ADDITION or POINTS_REMOVAL ledger row, the day's bucket credited or the soonest-expiring buckets
 * drained; a removal past the balance refused) and one event; with an Idempotency-Key, the answer is stored in
 * that same transaction, so a retried request is answered without a second change.
 */
@Injectable()
export class BalanceService {
  constructor(
    private readonly transactions: TransactionRunner,
    private readonly cards: CardRepository,
    private readonly posting: PointsPosting,
    private readonly buckets: BucketRepository,
    private readonly events: BalanceEventsRepository,
    private readonly members: MembersService,
    private readonly campaigns: CampaignsService,
    private readonly idempotency: IdempotencyService,
  ) {}

  async change(project: ProjectContext, campaignIdOrName: string | null, code: string, dto: BalanceChangeDto, key: string | undefined): Promise<LoyaltyCardBalanceDto> {
    const request = { projectId: project.id, scope: 'loyalties.members.balance', key, fingerprint: { campaign: campaignIdOrName, member: code, body: { ...dto } } };
    return this.idempotency.run<LoyaltyCardBalanceDto>(request, async (done) => {
      const card = await this.card(project, campaignIdOrName, code);
      const expiry = await this.expiryOf(project, dto);
      const cause = requestCause(project);
      return this.transactions.run(async (tx) => {
        const locked = await this.cards.lock(tx, [card.id]);
        // Gone since it was looked up: its campaign was deleted for good (issue 36).
        if (!locked.has(card.id)) throw ApiError.notFound('voucher', code);
        const on = { id: card.id, projectId: project.id, campaignId: card.campaignId };
        const row = { sourceId: dto.source_id ?? null, details: dto.reason !== undefined ? { reason: dto.reason } : {} };
        const movement: Movement = dto.points > 0 ? { kind: 'ADDITION', card: on, points: dto.points, expiry, row } : { kind: 'REMOVAL', card: on, points: -dto.points, row };
        const posting = await this.posting.post(locked, [movement]).catch((error: unknown) => {
          if (error instanceof PointsExceeded) throw pointsExceeded(code, card.id, error.points, error.balance);
          throw error;
        });
        const { transaction } = posting.movements[0];
        const after = posting.cards.get(card.id);
        if (!after) throw new Error(`card ${card.id} was not changed`);
        const body: LoyaltyCardBalanceDto = {
          points: dto.points,
          total: after.points,
          balance: after.balance,
          type: 'loyalty_card',
          object: 'balance',
          related_object: { type: 'voucher', id: card.id },
          operation_type: 'MANUAL',
        };
        await this.events.record(locked, card.id, dto.points > 0 ? CARD.POINTS_ADDED : CARD.POINTS_REMOVED, { balance: body, transaction: toTransactionDto(transaction) }, cause);
        await done(tx, body);
        return body;
      });
    });
  }

  /** GET /v1/loyalties/{campaignId}/members/{memberId}/points-expiration: the card's ACTIVE buckets. */
  async listBuckets(project: ProjectContext, campaignIdOrName: string, code: string, query: ListPointsExpirationQueryDto): Promise<PointsBucketListDto> {
    const card = await this.card(project, campaignIdOrName, code);
    const limit = query.limit ?? 10;
    const { rows, total } = await this.buckets.list(project.id, card.id, limit, ((query.page ?? 1) - 1) * limit);
    return { object: 'list', data_ref: 'data', data: rows.map(toPointsBucketDto), total };
  }

  private async card(project: ProjectContext, campaignIdOrName: string | null, code: string): Promise<CardRef> {
    const campaignId = campaignIdOrName !== null ? (await this.campaigns.find(project, campaignIdOrName)).campaign.id : undefined;
    const card = await this.members.findPublishedCard(project.id, code, campaignId);
    if (!card) throw ApiError.notFound('voucher', code);
    return card;
  }

  /** When added points expire, from the request: PROGRAM_RULES (the default) leaves it to the campaign's rules. */
  private async expiryOf(project: ProjectContext, dto: BalanceChangeDto): Promise<BucketExpiry> {
    const type = dto.expiration_type ?? 'PROGRAM_RULES';
    if (dto.points < 0 && (dto.expiration_type !== undefined || dto.expiration_date !== undefined)) {
      throw ApiError.invalidPayload('expiration_type and expiration_date apply to added points only (points > 0)');
    }
    if (type !== 'CUSTOM_DATE') {
      if (dto.expiration_date !== undefined) throw ApiError.invalidPayload('expiration_date is only for expiration_type CUSTOM_DATE');
      return type === 'NON_EXPIRING' ? 'NON_EXPIRING' : { earningRuleId: null };
    }
    if (dto.expiration_date === undefined) throw ApiError.invalidPayload('expiration_date is required when expiration_type is CUSTOM_DATE');
    const date = dto.expiration_date.slice(0, 10);
    if (!isCalendarDate(date)) throw invalidExpirationDate(dto.expiration_date, 'is not a calendar date');
    const today = await this.buckets.today(project.id);
    if (date < today) throw invalidExpirationDate(dto.expiration_date, `is before today (${today} in the project's time zone)`);
    return { date };
  }
}

function isCalendarDate(date: string): boolean {
  const parsed = new Date(`${date}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === date;
}

function invalidExpirationDate(value: string, why: string): ApiError {
  return new ApiError(400, 'invalid_expiration_date', 'Invalid Expiration Date', { details: `expiration_date ${value} ${why}` });
}

function pointsExceeded(code: string, cardId: string, removed: number, balance: number): ApiError {
  return new ApiError(400, 'loyalty_card_points_exceeded', 'Loyalty card points exceeded', {
    details: `Cannot remove ${removed} points from card ${code}: its balance is ${balance}`,
    resourceId: cardId,
    resourceType: 'voucher',
  });
}
