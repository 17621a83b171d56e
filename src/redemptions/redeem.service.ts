import { Injectable } from '@nestjs/common';
import type { ProjectContext } from '../auth/auth.service.js';
import { CardRepository, type LockedCards } from '../cards/card.repository.js';
import { ApiError } from '../common/errors/api-error.js';
import { hexId } from '../common/ids.js';
import type { Customer } from '../customers/customer.entity.js';
import { CustomersService } from '../customers/customers.service.js';
import { TransactionRunner } from '../database/transaction-runner.js';
import { type EventCause, requestCause } from '../events/recording/event-recording.js';
import { type IdempotentDone, IdempotencyService } from '../idempotency/idempotency.service.js';
import { MembersService } from '../members/members.service.js';
import { toOrderDto } from '../points/orders/dto/order.dto.js';
import { type Order, totalAmount } from '../points/orders/order.entity.js';
import { OrderRepository } from '../points/orders/order.repository.js';
import { type Movement, PointsExceeded, PointsPosting } from '../points/ledger/posting.service.js';
import type { CoinRewardParameters, Reward } from '../rewards/reward.entity.js';
import { RewardRepository } from '../rewards/reward.repository.js';
import type { RedeemRewardDto, LoyaltyRedemptionDto } from './dto/redemption.dto.js';
import { toRedemptionDto } from './dto/redemption-answers.js';
import { coinPoints, rewardResult, stateOf, succeededRow } from './redemption-parts.js';
import type { Checked } from './redeem-checks.service.js';
import { RedemptionBatches } from './redemption-batches.service.js';
import { RedemptionErrors } from './redemption-errors.js';
import { RedemptionEventsRepository } from './redemption-events.repository.js';
import { RedemptionRepository } from './redemption.repository.js';

/** What a COIN or CAMPAIGN redemption needs, read before its transaction. */
interface Prepared extends Checked {
  /** CAMPAIGN: the customer's card in the target campaign (enrolled before the transaction when there was none). */
  target: { cardId: string; campaignId: string; points: number } | null;
  /** COIN: the order as stored (null: a new one) and its customer, read before the transaction (as orders do). */
  order: { existing: Order | null; customerId: string | undefined } | null;
}

/**
 * Redeeming a reward with a loyalty card (docs/rewards.md, "Redeeming"). Every redemption goes to
 * RedemptionBatches, which reads and checks the project's concurrent ones together and writes the MATERIAL ones
 * there. A COIN or CAMPAIGN reward's comes back checked, and is one transaction of its own, in the lock order of docs/architecture.md: a COIN redemption's order row first, then the card (and
 * a CAMPAIGN reward's target card), in id order; then the points posted (PointsPosting: REDEMPTION on the card,
 * draining its buckets soonest-expiring first, refused past its balance; ADDITION on the target card), then the
 * reward's stock unit, taken last (a reward's row is never held while waiting for a card), then the redemption's
 * row and its events. A refusal throws inside the transaction, so nothing of it stays: no row, no bucket, no
 * counter, no event.
 */
@Injectable()
export class RedeemService {
  constructor(
    private readonly transactions: TransactionRunner,
    private readonly cards: CardRepository,
    private readonly posting: PointsPosting,
    private readonly redemptions: RedemptionRepository,
    private readonly events: RedemptionEventsRepository,
    private readonly rewardRows: RewardRepository,
    private readonly members: MembersService,
    private readonly customers: CustomersService,
    private readonly orders: OrderRepository,
    private readonly idempotency: IdempotencyService,
    private readonly batches: RedemptionBatches,
  ) {}

  async redeem(project: ProjectContext, campaignIdOrName: string | null, code: string, dto: RedeemRewardDto, key: string | undefined): Promise<LoyaltyRedemptionDto> {
    const request = { projectId: project.id, scope: 'loyalties.members.redemption', key, fingerprint: { campaign: campaignIdOrName, member: code, body: { ...dto } } };
    return this.idempotency.run<LoyaltyRedemptionDto>(request, async (done) => {
      const cause = requestCause(project);
      const batched = await this.batches.redeem({ project, campaignIdOrName, code, dto, cause, done });
      if ('answer' in batched) return batched.answer;
      const prepared = await this.prepare(project, batched.alone, dto);
      return this.transactions.run(async (tx) => {
        const order = prepared.order ? await this.saveOrder(tx, project, prepared.order, dto) : null;
        const locked = await this.cards.lock(tx, [prepared.card.id, ...(prepared.target ? [prepared.target.cardId] : [])]);
        // Gone since it was looked up: its campaign was deleted for good (issue 36).
        if (!locked.has(prepared.card.id)) throw ApiError.notFound('voucher', code);
        if (prepared.target && !locked.has(prepared.target.cardId)) throw RedemptionErrors.noTargetCard(prepared.target.campaignId, 'its card there was deleted');
        return this.write(locked, project, prepared, dto, order, cause, done);
      });
    });
  }

  /** After the checks (RedeemChecks, in the batch): a CAMPAIGN reward's target card (enrolling the customer there first), a COIN reward's order. */
  private async prepare(project: ProjectContext, checked: Checked, dto: RedeemRewardDto): Promise<Prepared> {
    const { reward, customer } = checked;
    const target = reward.type === 'CAMPAIGN' ? await this.targetCard(project, reward, customer) : null;
    const order = reward.type === 'COIN' ? await this.findOrder(project, dto, customer) : null;
    return { ...checked, target, order };
  }

  /** A COIN redemption's order as stored, by id (404 when there is none) or source_id, and its customer (the card's holder unless the order names one). */
  private async findOrder(project: ProjectContext, dto: RedeemRewardDto, holder: Customer | null): Promise<NonNullable<Prepared['order']>> {
    const order = dto.order as NonNullable<RedeemRewardDto['order']>;
    const existing = order.id !== undefined || order.source_id !== undefined ? await this.orders.findByIdOrSourceId(project.id, order.id ?? (order.source_id as string)) : null;
    if (order.id !== undefined && (!existing || existing.id !== order.id)) throw ApiError.notFound('order', order.id);
    const customerId = order.customer !== undefined ? (await this.customers.resolve(project, order.customer)).id : (existing?.customerId ?? holder?.id);
    return { existing, customerId };
  }

  /** A CAMPAIGN reward's card: the customer's ACTIVE card in the target campaign, enrolled there first when it has none. */
  private async targetCard(project: ProjectContext, reward: Reward, customer: Customer | null): Promise<Prepared['target']> {
    const { id: campaignId, balance } = (reward.parameters as { campaign: { id: string; balance: number } }).campaign;
    if (!customer) throw RedemptionErrors.noTargetCard(campaignId, 'the card has no holder');
    const cards = await this.members.activeCardsOf(project.id, customer.id, [campaignId]);
    const cardId = cards.get(campaignId) ?? (await this.members.autoJoin(project, campaignId, customer));
    if (!cardId) throw RedemptionErrors.noTargetCard(campaignId, 'the campaign is not active, the customer is an inactive member, or it has no card to give');
    return { cardId, campaignId, points: balance };
  }

  /**
   * A COIN redemption's order, upserted by id or source_id, its row held until the commit. No earning here: a PAID
   * order earns when it is sent to POST /v1/orders, on its amount after the discount (docs/rewards.md).
   */
  private async saveOrder(tx: Parameters<OrderRepository['save']>[0], project: ProjectContext, found: NonNullable<Prepared['order']>, dto: RedeemRewardDto): Promise<Order> {
    const order = dto.order as NonNullable<RedeemRewardDto['order']>;
    const { existing, customerId } = found;
    return this.orders.save(
      tx,
      { id: existing?.id ?? hexId('ord_'), projectId: project.id, sourceId: existing ? undefined : order.source_id, existing: existing !== null },
      { status: order.status, amount: order.amount, customerId, items: order.items?.map((item) => ({ ...item, object: 'order_item' as const })), metadata: order.metadata },
    );
  }

  /**
   * Under the cards' lock: the points, the row, the events, the answer (stored with its Idempotency-Key), and the
   * stock unit last: the reward's row, which every redemption of a reward with a stock updates, is held for the least time.
   */
  private async write(
    locked: LockedCards,
    project: ProjectContext,
    prepared: Prepared,
    dto: RedeemRewardDto,
    order: Order | null,
    cause: EventCause,
    done: IdempotentDone<LoyaltyRedemptionDto>,
  ): Promise<LoyaltyRedemptionDto> {
    const { card, reward, assignment, target } = prepared;
    const id = hexId('r_');
    let points = assignment.points ?? 0;
    let discount = 0;
    if (reward.type === 'COIN') {
      // What is left to pay: the order's amount less the discount of its earlier COIN redemptions.
      const due = order ? totalAmount(order) : 0;
      if (dto.reward?.points === undefined && !(due > 0)) {
        throw ApiError.invalidPayload(`order.amount: the order has nothing to pay (amount ${order?.amount ?? 0}, discount ${order?.discountAmount ?? 0}); send reward.points, or an order with an amount`);
      }
      const [current] = [...(await this.cards.current(locked, [card.id])).values()];
      const coin = coinPoints((reward.parameters as CoinRewardParameters).coin, due, dto.reward?.points, current.balance);
      if (coin === null) throw RedemptionErrors.pointsExceeded(card.code, dto.reward?.points ?? (reward.parameters as CoinRewardParameters).coin.points_ratio, current.balance);
      ({ points, discount } = coin);
    }
    const on = { id: card.id, projectId: project.id, campaignId: card.campaign_id };
    const details = { ...(order ? { order: { id: order.id, source_id: order.sourceId } } : {}), redemption: { id }, reward: { id: reward.id, name: reward.name } };
    const movements: Movement[] = [{ kind: 'REDEMPTION', card: on, points, row: { orderId: order?.id ?? null, details } }];
    if (target) {
      movements.push({ kind: 'ADDITION', card: { id: target.cardId, projectId: project.id, campaignId: target.campaignId }, points: target.points, expiry: { earningRuleId: null }, row: { details: { redemption: { id }, reward: { id: reward.id, name: reward.name } } } });
    }
    // Nothing changed the cards since their lock: the debit is checked against the balance the lock read.
    const posting = await this.posting.post(locked, movements, { unchangedSinceLock: true }).catch((error: unknown) => {
      if (error instanceof PointsExceeded) throw RedemptionErrors.pointsExceeded(card.code, error.points, error.balance);
      throw error;
    });
    // The card's columns as the posting's update returned them; a CAMPAIGN reward's target card is read whole.
    const states = target ? await this.redemptions.cardStates(locked, [card.id, target.cardId]) : new Map([[card.id, stateOf(card, posting.cards.get(card.id))]]);
    const rewardJson = rewardResult(reward, assignment);
    const targetState = target ? states.get(target.cardId) : undefined;
    if (targetState) {
      rewardJson.voucher = {
        id: targetState.id,
        code: targetState.code,
        campaign_id: targetState.campaignId,
        type: 'LOYALTY_CARD',
        loyalty_card: { points: targetState.points, balance: targetState.balance },
        holder_id: targetState.holderId,
        created_at: targetState.createdAt.toISOString(),
        object: 'voucher',
      };
    }
    // The discount becomes the order's (its row, locked since saveOrder): its answers and its earning count it.
    const discounted = order && discount > 0 ? ((await this.orders.discount(locked.tx, project.id, order.id, discount)) ?? order) : order;
    const orderJson = discounted
      ? {
          ...toOrderDto(discounted),
          applied_discount_amount: discount,
          redemptions: { [id]: { date: posting.movements[0].transaction.createdAt.toISOString(), related_object_type: 'voucher', related_object_id: card.id, related_object_parent_id: card.campaign_id } },
        }
      : null;
    const row = await this.redemptions.insert(
      locked,
      succeededRow({
        id,
        project,
        card,
        customer: prepared.customer,
        reward,
        assignment,
        points,
        posted: posting.movements[0],
        state: states.get(card.id),
        rewardJson,
        metadata: dto.metadata ?? null,
        target,
        order: order && orderJson ? { id: order.id, json: orderJson } : null,
      }),
    );
    const answer = toRedemptionDto(row, null);
    await this.events.redeemed(locked, [{ row, answer, assignment, cause, balance: null }]);
    await done(locked.tx, answer);
    // A reward without a stock: its row only held FOR KEY SHARE, so its redemptions do not queue on it (its `redeemed` is counted from them).
    const taken = reward.stock === null ? await this.rewardRows.takeUnlimited(locked.tx, project.id, reward.id) : (await this.rewardRows.takeUnit(locked.tx, project.id, reward.id)) !== null;
    if (!taken) throw RedemptionErrors.outOfStock(reward.id);
    return answer;
  }
}
