import { Injectable } from '@nestjs/common';
import type { ProjectContext } from '../../auth/auth.service.js';
import { ApiError } from '../../common/errors/api-error.js';
import { hexId } from '../../common/ids.js';
import { AppConfig } from '../../config/app-config.js';
import { CustomersService } from '../../customers/customers.service.js';
import { TransactionRunner } from '../../database/transaction-runner.js';
import { type EventCause, requestCause } from '../../events/recording/event-recording.js';
import { CardRepository, type LockedCards } from '../../cards/card.repository.js';
import { EarningPlanner, earnedPoints, type PlannedEarning } from '../earning/earning-planner.service.js';
import { PointsPosting } from '../ledger/posting.service.js';
import type { PendingPointsDetails } from '../pending/pending-points.entity.js';
import type { PendingPoints } from '../pending/pending-points.entity.js';
import { pendingDeltas, PendingPointsService } from '../pending/pending-points.service.js';
import { type CreateOrderDto, type OrderDto, type OrderFieldsDto, toOrderDto } from './dto/order.dto.js';
import { type Order, totalAmount } from './order.entity.js';
import { type OrderFields, OrderRepository } from './order.repository.js';

/** A rule of the plan and the points it earns on this order. */
interface Earning {
  planned: PlannedEarning;
  points: number;
}

/**
 * The earning rule as pending entries and ledger rows name it, Voucherify's `details.earning_rule`, whose
 * schemas require `source.banner`: a rule without a banner gives an empty one (docs/decisions.md, issue 37).
 */
function earningRuleRef(rule: { id: string; banner: string | null }): { id: string; source: { banner: string } } {
  return { id: rule.id, source: { banner: rule.banner ?? '' } };
}

/**
 * Orders, and earning on them (issue 10): when an order is or becomes PAID, every rule of the plan earns
 * once per (order, rule), ever; points go straight to the card (a POINTS_ACCRUAL transaction) or wait as a
 * pending entry. When an order becomes CANCELED, its pending entries are canceled.
 */
@Injectable()
export class OrdersService {
  constructor(
    private readonly orders: OrderRepository,
    private readonly customers: CustomersService,
    private readonly planner: EarningPlanner,
    private readonly transactions: TransactionRunner,
    private readonly cards: CardRepository,
    private readonly posting: PointsPosting,
    private readonly pending: PendingPointsService,
    private readonly config: AppConfig,
  ) {}

  /** POST /v1/orders: updates the order with this `id` or `source_id`, or creates one. */
  async create(project: ProjectContext, dto: CreateOrderDto): Promise<OrderDto> {
    if (dto.id !== undefined) {
      const existing = await this.orders.findByIdOrSourceId(project.id, dto.id);
      if (!existing || existing.id !== dto.id) throw ApiError.notFound('order', dto.id);
      return this.save(project, existing, undefined, dto);
    }
    if (dto.source_id === undefined) return this.save(project, null, undefined, dto);
    // The upsert by source id needs the stored order only for what the request leaves out: its status, or its
    // customer when it is PAID. A shop's paid order names both, and saves a read.
    const complete = dto.status !== undefined && (dto.status !== 'PAID' || dto.customer !== undefined);
    const existing = complete ? null : await this.orders.findBySourceId(project.id, dto.source_id);
    return this.save(project, existing, existing ? undefined : dto.source_id, dto);
  }

  /** PUT /v1/orders/{orderId}: `orderId` is the id or the source id. */
  async update(project: ProjectContext, idOrSourceId: string, dto: OrderFieldsDto): Promise<OrderDto> {
    return this.save(project, await this.find(project, idOrSourceId), undefined, dto);
  }

  async get(project: ProjectContext, idOrSourceId: string): Promise<OrderDto> {
    return toOrderDto(await this.find(project, idOrSourceId));
  }

  private async find(project: ProjectContext, idOrSourceId: string): Promise<Order> {
    const order = await this.orders.findByIdOrSourceId(project.id, idOrSourceId);
    if (!order) throw ApiError.notFound('order', idOrSourceId);
    return order;
  }

  private async save(project: ProjectContext, existing: Order | null, sourceId: string | undefined, dto: OrderFieldsDto): Promise<OrderDto> {
    const customer = dto.customer !== undefined ? await this.customers.resolve(project, dto.customer) : null;
    // Earning is planned before the transaction (auto-join enrols in its own); a plan for a customer the
    // order no longer has when it is saved is dropped.
    const customerId = customer?.id ?? existing?.customerId ?? null;
    const plan = (dto.status ?? existing?.status) === 'PAID' && customerId ? await this.planner.plan(project, customer ?? customerId) : [];
    const fields: OrderFields = { status: dto.status, amount: dto.amount, customerId: customer?.id, items: dto.items?.map((item) => ({ ...item, object: 'order_item' as const })), metadata: dto.metadata };
    const cause = requestCause(project);
    const { order, entries } = await this.transactions.run(async (tx) => {
      // The order's row first (concurrent sends of one order queue here), then the cards (CardRepository's
      // discipline), then the rows that reference them.
      const saved = await this.orders.save(tx, { id: existing?.id ?? hexId('ord_'), projectId: project.id, sourceId, existing: existing !== null }, fields);
      let created: PendingPoints[] = [];
      if (saved.status === 'PAID' && saved.customerId !== null) {
        const earning = (saved.customerId === customerId ? plan : [])
          // On what the order costs after its COIN discount (docs/rewards.md, "Redeeming"): the row as saved here,
          // locked, so a redemption of the same order is wholly before or wholly after this earning.
          .map((planned) => ({ planned, points: earnedPoints(planned, totalAmount(saved)) }))
          .filter((e) => e.points > 0);
        if (earning.length) {
          const locked = await this.cards.lock(tx, earning.map((e) => e.planned.cardId));
          // A card gone since the plan (its campaign deleted for good) earns nothing.
          const live = earning.filter((e) => locked.has(e.planned.cardId));
          if (live.length) created = await this.earn(locked, saved, live, cause);
        }
      } else if (saved.status === 'CANCELED') {
        await this.pending.cancelForOrder(tx, saved.id, cause);
      }
      return { order: saved, entries: created };
    });
    await this.pending.schedule(entries);
    return toOrderDto(order);
  }

  /** Inside the order's transaction, its cards locked: claims, then accruals and pending entries for the rules this call won. */
  private async earn(locked: LockedCards, order: Order, earning: Earning[], cause: EventCause): Promise<PendingPoints[]> {
    const won = await this.orders.claim(
      locked,
      order.id,
      order.projectId,
      earning.map((e) => ({ earningRuleId: e.planned.rule.id, voucherId: e.planned.cardId, points: e.points })),
    );
    const claimed = earning.filter((e) => won.has(e.planned.rule.id));
    if (!claimed.length) return [];
    const paid = this.paidEvent(order, cause);

    const accruals = claimed.filter((e) => e.planned.rule.pendingPoints === null);
    const held = claimed.filter((e) => e.planned.rule.pendingPoints !== null);
    const created = await this.pending.insert(
      locked,
      held.map((e) => ({
        id: hexId('lopp_'),
        projectId: order.projectId,
        voucherId: e.planned.cardId,
        campaignId: e.planned.rule.campaignId,
        customerId: order.customerId as string,
        orderId: order.id,
        earningRuleId: e.planned.rule.id,
        points: e.points,
        delayMs: (e.planned.rule.pendingPoints?.period_value ?? 0) * this.config.pendingPointsDayMs,
        details: { ...paid, earning_rule: earningRuleRef(e.planned.rule) },
      })),
    );
    // The accruals posted, and the entries' pending points with them (one UPDATE of the cards); then the entries'
    // events, which show the cards after both, their next expiration included.
    await this.posting.post(
      locked,
      accruals.map((e) => ({
        kind: 'ACCRUAL' as const,
        card: { id: e.planned.cardId, projectId: order.projectId, campaignId: e.planned.rule.campaignId },
        points: e.points,
        expiry: { earningRuleId: e.planned.rule.id },
        row: { orderId: order.id, details: { order: paid.order, event: { id: paid.event.id, type: paid.event.type }, earning_rule: earningRuleRef(e.planned.rule) } },
      })),
      { alongside: pendingDeltas(created) },
    );
    await this.pending.added(locked, created, cause);
    return created;
  }

  /** The payment of the order as pending entries and transactions show where their points came from. */
  private paidEvent(order: Order, cause: EventCause): Omit<PendingPointsDetails, 'earning_rule'> {
    return {
      event: {
        id: hexId('evcus_'),
        type: 'customer.order.paid',
        group_id: cause.groupId,
        entity_id: order.customerId as string,
        created_at: new Date().toISOString(),
        category: 'ACTION',
        event_source: cause.source,
      },
      order: { id: order.id, source_id: order.sourceId },
    };
  }
}
