import { Injectable } from '@nestjs/common';
import type { ProjectContext } from '../auth/auth.service.js';
import { CardRepository } from '../cards/card.repository.js';
import { ApiError } from '../common/errors/api-error.js';
import { hexId } from '../common/ids.js';
import { TransactionRunner } from '../database/transaction-runner.js';
import { requestCause } from '../events/recording/event-recording.js';
import { IdempotencyService } from '../idempotency/idempotency.service.js';
import { type Movement, PointsExceeded, PointsPosting, RefundNotRestorable } from '../points/ledger/posting.service.js';
import { toOrderDto } from '../points/orders/dto/order.dto.js';
import { OrderRepository } from '../points/orders/order.repository.js';
import { RewardAssignmentRepository } from '../rewards/reward-assignment.repository.js';
import { RewardRepository } from '../rewards/reward.repository.js';
import type { RedemptionRollbackDto, RollbackBodyDto, RollbackQueryDto } from './dto/redemption.dto.js';
import { toRedemptionDto, toRollbackDto } from './dto/redemption-answers.js';
import { voucherAfter } from './redemption-parts.js';
import { RedemptionErrors } from './redemption-errors.js';
import { RedemptionEventsRepository } from './redemption-events.repository.js';
import { RedemptionRepository } from './redemption.repository.js';
import type { LoyaltyMemberDto } from '../members/dto/loyalty-member.dto.js';

/** The discount a COIN redemption gave its order (its answer's `applied_discount_amount`; 0 for other rewards). */
function appliedDiscount(order: unknown): number {
  const applied = (order as { applied_discount_amount?: unknown } | null)?.applied_discount_amount;
  return typeof applied === 'number' && applied > 0 ? applied : 0;
}

/** A rollback's order: the redemption's, with the order's amounts as the rollback left them (its discount given back). */
function orderAfter(before: unknown, after: ReturnType<typeof toOrderDto>): Record<string, unknown> {
  const { discount_amount, total_discount_amount, total_amount, status, updated_at } = after;
  return { ...(before as Record<string, unknown>), status, discount_amount, total_discount_amount, total_amount, updated_at };
}

/**
 * Rolling a redemption back (POST /v1/redemptions/{redemptionId}/rollback): an exact undo, once. One transaction:
 * the card (and a CAMPAIGN reward's target card) locked first, in id order; then the redemption read again under
 * that lock, so concurrent rollbacks of one redemption take turns and the second finds it ROLLED_BACK (400
 * `already_rolled_back`; the unique index on a rollback's `redemption_id` is the last guard); then the points
 * posted (REFUND: the same points to the same buckets; a CAMPAIGN reward's credit taken back with a REMOVAL),
 * the stock unit given back, the rows and the events.
 */
@Injectable()
export class RollbackService {
  constructor(
    private readonly transactions: TransactionRunner,
    private readonly cards: CardRepository,
    private readonly posting: PointsPosting,
    private readonly redemptions: RedemptionRepository,
    private readonly events: RedemptionEventsRepository,
    private readonly rewardRows: RewardRepository,
    private readonly assignments: RewardAssignmentRepository,
    private readonly idempotency: IdempotencyService,
    private readonly orders: OrderRepository,
  ) {}

  async rollback(project: ProjectContext, redemptionId: string, query: RollbackQueryDto, dto: RollbackBodyDto, key: string | undefined): Promise<RedemptionRollbackDto> {
    const request = { projectId: project.id, scope: 'redemptions.rollback', key, fingerprint: { redemption: redemptionId, query: { ...query }, body: { ...dto } } };
    return this.idempotency.run<RedemptionRollbackDto>(request, async (done) => {
      const found = await this.redemptions.find(project.id, redemptionId);
      if (!found || found.object !== 'redemption') throw ApiError.notFound('redemption', redemptionId);
      if (found.status === 'ROLLED_BACK') throw RedemptionErrors.alreadyRolledBack();
      const assignment = await this.assignments.find(project.id, found.assignmentId);
      const cause = requestCause(project);
      const applied = found.orderId ? appliedDiscount(found.snapshot.order) : 0;
      return this.transactions.run(async (tx) => {
        // A COIN redemption's discount back off its order: the order's row first, before the cards, as every
        // writer of an order and a card locks them (docs/architecture.md). Undone with the rest if this rollback
        // finds the redemption rolled back already.
        const order = found.orderId && applied > 0 ? await this.orders.discount(tx, project.id, found.orderId, -applied) : null;
        const locked = await this.cards.lock(tx, [found.voucherId, ...(found.targetCardId ? [found.targetCardId] : [])]);
        const redemption = locked.has(found.voucherId) ? await this.redemptions.findLocked(locked, project.id, redemptionId) : null;
        if (!redemption) throw ApiError.notFound('redemption', redemptionId);
        if (redemption.status === 'ROLLED_BACK' || !(await this.redemptions.markRolledBack(locked, project.id, redemption.id))) throw RedemptionErrors.alreadyRolledBack();

        const id = hexId('rr_');
        const on = { id: redemption.voucherId, projectId: project.id, campaignId: redemption.campaignId };
        const reward = redemption.snapshot.reward as { id: string; name: string };
        const details = { ...(redemption.orderId ? { order: (redemption.snapshot.order ? { id: redemption.orderId, source_id: (redemption.snapshot.order as { source_id: string | null }).source_id } : { id: redemption.orderId, source_id: null }) } : {}), redemption: { id: redemption.id }, rollback: { id }, reward: { id: reward.id, name: reward.name } };
        const movements: Movement[] = [{ kind: 'REFUND', card: on, points: redemption.points, buckets: redemption.buckets, row: { orderId: redemption.orderId, details } }];
        const target = redemption.targetCardId !== null && redemption.targetPoints !== null && locked.has(redemption.targetCardId) ? { id: redemption.targetCardId, points: redemption.targetPoints } : null;
        if (target) {
          const [state] = [...(await this.redemptions.cardStates(locked, [target.id])).values()];
          movements.push({ kind: 'REMOVAL', card: { id: target.id, projectId: project.id, campaignId: state.campaignId }, points: target.points, row: { details: { redemption: { id: redemption.id }, rollback: { id }, reward: { id: reward.id, name: reward.name } } } });
        }
        const posting = await this.posting.post(locked, movements).catch((error: unknown) => {
          if (error instanceof RefundNotRestorable) throw RedemptionErrors.notRestorable('Some of the points it took were in buckets that have expired since; a rollback after expiry is not supported.');
          if (error instanceof PointsExceeded) throw RedemptionErrors.notRestorable(`The points the reward credited to card ${error.cardId} have been spent (${error.points} to take back, ${error.balance} left).`);
          throw error;
        });
        const states = await this.redemptions.cardStates(locked, [redemption.voucherId]);
        const voucher = voucherAfter(redemption.snapshot.voucher as unknown as LoyaltyMemberDto, states.get(redemption.voucherId));
        const row = await this.redemptions.insert(locked, {
          id,
          projectId: project.id,
          object: 'redemption_rollback',
          redemptionId: redemption.id,
          status: 'SUCCEEDED',
          voucherId: redemption.voucherId,
          campaignId: redemption.campaignId,
          customerId: redemption.customerId,
          rewardId: redemption.rewardId,
          assignmentId: redemption.assignmentId,
          points: -redemption.points,
          buckets: redemption.buckets,
          targetCardId: target?.id ?? null,
          targetPoints: target ? -target.points : null,
          orderId: redemption.orderId,
          trackingId: query.tracking_id ?? redemption.trackingId,
          reason: query.reason ?? null,
          metadata: dto.metadata ?? null,
          transactionId: posting.movements[0].transaction.id,
          snapshot: { ...redemption.snapshot, ...(order && redemption.snapshot.order ? { order: orderAfter(redemption.snapshot.order, toOrderDto(order)) } : {}), voucher, channel: { channel_id: project.apiKey?.appId ?? 'API', channel_type: 'API' } },
        });
        const answer = toRollbackDto(row);
        await this.events.rolledBack(locked, redemption, row, answer, toRedemptionDto({ ...redemption, status: 'ROLLED_BACK' }, row), assignment, cause);
        await done(tx, answer);
        // The stock unit back last: the reward's row is held for the least time (as a redemption takes it).
        await this.rewardRows.returnUnit(tx, project.id, redemption.rewardId);
        return answer;
      });
    });
  }
}
