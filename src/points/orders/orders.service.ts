import { Injectable } from '@nestjs/common';
import type { ProjectContext } from '../../auth/auth.service.js';
import { type Collector, requestCollector } from '../../common/batching/collector.js';
import { ApiError } from '../../common/errors/api-error.js';
import { hexId, timeId } from '../../common/ids.js';
import { AppConfig } from '../../config/app-config.js';
import { CustomersService } from '../../customers/customers.service.js';
import type { UpsertCustomerDto } from '../../customers/dto/customer.dto.js';
import { TransactionRunner } from '../../database/transaction-runner.js';
import { type EventCause, requestCause } from '../../events/recording/event-recording.js';
import { Metrics } from '../../metrics/metrics.js';
import { CardRepository, type LockedCards } from '../../cards/card.repository.js';
import { EarningPlanner, earnedPoints, type PlannedEarning } from '../earning/earning-planner.service.js';
import { type Movement, PointsPosting } from '../ledger/posting.service.js';
import type { PendingPointsDetails } from '../pending/pending-points.entity.js';
import type { PendingPoints } from '../pending/pending-points.entity.js';
import type { NewPendingPoints } from '../pending/pending-points.repository.js';
import { pendingDeltas, PendingPointsService } from '../pending/pending-points.service.js';
import { type CreateOrderDto, type OrderDto, type OrderFieldsDto, toOrderDto } from './dto/order.dto.js';
import { type Order, totalAmount } from './order.entity.js';
import { claimKey, type OrderFields, OrderRepository } from './order.repository.js';

/** A rule of the plan and the points it earns on this order. */
interface Earning {
  planned: PlannedEarning;
  points: number;
}

/** A saved order, what it earns on its locked cards, and the request that caused it. */
interface OrderEarning {
  order: Order;
  earning: Earning[];
  cause: EventCause;
}

/** A paid order by source id that names its customer, as its request sent it: what the collector batches. */
interface PaidRequest {
  project: ProjectContext;
  sourceId: string;
  customer: UpsertCustomerDto;
  /** The order's columns but its customer. */
  fields: OrderFields;
  cause: EventCause;
}

/** A paid request with its customer and plan, ready for the batch's transaction. */
interface PaidOrder extends PaidRequest {
  customerId: string;
  plan: PlannedEarning[];
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
  /**
   * Concurrent paid orders of a project, collected into one transaction each batch (issue 40): per project and set
   * of columns sent; one order never shares a batch with another send of itself. An error that belongs to the
   * orders (not to the database's state) runs each order of the batch again alone, so one bad order fails only
   * itself. An order that no batch took within DATABASE_POOL_WAIT_MS is answered 503 database_busy, as one that
   * found no free connection.
   */
  private readonly paid: Collector<PaidRequest, PromiseSettledResult<Order>>;

  constructor(
    private readonly orders: OrderRepository,
    private readonly customers: CustomersService,
    private readonly planner: EarningPlanner,
    private readonly transactions: TransactionRunner,
    private readonly cards: CardRepository,
    private readonly posting: PointsPosting,
    private readonly pending: PendingPointsService,
    private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {
    this.paid = requestCollector((requests) => this.payBatch(requests), config.databasePool.waitMs);
  }

  /** POST /v1/orders: updates the order with this `id` or `source_id`, or creates one. */
  async create(project: ProjectContext, dto: CreateOrderDto): Promise<OrderDto> {
    if (dto.id !== undefined) {
      const existing = await this.orders.findByIdOrSourceId(project.id, dto.id);
      if (!existing || existing.id !== dto.id) throw ApiError.notFound('order', dto.id);
      return this.save(project, existing, undefined, dto);
    }
    if (dto.source_id === undefined) return this.save(project, null, undefined, dto);
    if (dto.status === 'PAID' && dto.customer !== undefined) return this.pay(project, dto.source_id, dto.customer, dto);
    // The upsert by source id needs the stored order only for what the request leaves out: its status, or its
    // customer when it is PAID (a paid order that names its customer went to `pay` above).
    const complete = dto.status !== undefined && dto.status !== 'PAID';
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
          if (live.length) created = await this.earn(locked, [{ order: saved, earning: live, cause }]);
        }
      } else if (saved.status === 'CANCELED') {
        await this.pending.cancelForOrder(tx, saved.id, cause);
      }
      return { order: saved, entries: created };
    });
    await this.pending.schedule(entries);
    return toOrderDto(order);
  }

  /** A paid order by source id naming its customer: saved and earned in a batch with the project's other paid orders of the moment (`paid`). */
  private async pay(project: ProjectContext, sourceId: string, customer: UpsertCustomerDto, dto: OrderFieldsDto): Promise<OrderDto> {
    const fields: OrderFields = { status: 'PAID', amount: dto.amount, items: dto.items?.map((item) => ({ ...item, object: 'order_item' as const })), metadata: dto.metadata };
    const columns = (Object.keys(fields) as (keyof OrderFields)[]).filter((name) => fields[name] !== undefined);
    const bytes = (fields.items ? JSON.stringify(fields.items).length : 0) + (fields.metadata ? JSON.stringify(fields.metadata).length : 0);
    const outcome = await this.paid.submit(`${project.id} ${columns.join(',')}`, { project, sourceId, customer, fields, cause: requestCause(project) }, { bytes, conflict: sourceId });
    if (outcome.status === 'rejected') throw outcome.reason;
    return toOrderDto(outcome.value);
  }

  /**
   * A batch of paid requests of one project: their customers resolved and their plans made together (one statement
   * each for all in the common case), then one transaction for those whose customer and plan were found (`saveBatch`).
   * Each request's order, or the error of its own customer or plan.
   */
  private async payBatch(requests: PaidRequest[]): Promise<PromiseSettledResult<Order>[]> {
    const project = requests[0].project;
    const customers = await this.customers.resolveAll(project, requests.map((r) => r.customer));
    const distinct = [...new Map(customers.flatMap((c) => (c.status === 'fulfilled' ? [[c.value.id, c.value] as const] : []))).values()];
    const plans = await this.planner.planAll(project, distinct);
    const planOf = new Map(distinct.map((customer, i) => [customer.id, plans[i]]));
    const outcomes: PromiseSettledResult<Order>[] = new Array(requests.length);
    const ready: { at: number; order: PaidOrder }[] = [];
    requests.forEach((request, at) => {
      const customer = customers[at];
      if (customer.status === 'rejected') return void (outcomes[at] = customer);
      const plan = planOf.get(customer.value.id) as PromiseSettledResult<PlannedEarning[]>;
      if (plan.status === 'rejected') return void (outcomes[at] = plan);
      ready.push({ at, order: { ...request, customerId: customer.value.id, plan: plan.value } });
    });
    if (ready.length) {
      const saved = await this.saveBatch(ready.map((r) => r.order));
      ready.forEach((r, i) => (outcomes[r.at] = { status: 'fulfilled', value: saved[i] }));
    }
    return outcomes;
  }

  /**
   * One transaction for a batch of paid orders of one project (distinct source ids, the same columns): the orders
   * upserted in one statement (in source id order), the cards of all their plans locked in one (id order), then
   * the claims, pending entries, accruals and events of all of them together (`earn`); after commit, the entries'
   * activation cohorts. The orders in the order given.
   */
  private async saveBatch(paid: PaidOrder[]): Promise<Order[]> {
    const projectId = paid[0].project.id;
    const { saved, entries } = await this.transactions.run(async (tx) => {
      const saved = await this.orders.upsertBySourceId(tx, projectId, paid.map((p) => ({ id: hexId('ord_'), sourceId: p.sourceId, fields: { ...p.fields, customerId: p.customerId } })));
      const earning = saved.map((order, i) => ({
        order,
        cause: paid[i].cause,
        earning: paid[i].plan.map((planned) => ({ planned, points: earnedPoints(planned, totalAmount(order)) })).filter((e) => e.points > 0),
      }));
      const locked = await this.cards.lock(tx, earning.flatMap((o) => o.earning.map((e) => e.planned.cardId)));
      // A card gone since the plan (its campaign deleted for good) earns nothing.
      const live = earning.map((o) => ({ ...o, earning: o.earning.filter((e) => locked.has(e.planned.cardId)) })).filter((o) => o.earning.length);
      return { saved, entries: live.length ? await this.earn(locked, live) : [] };
    });
    this.metrics.paidOrderBatch(paid.length);
    await this.pending.schedule(entries);
    return saved;
  }

  /**
   * Inside the orders' transaction, their cards locked: claims, then accruals and pending entries for the rules each
   * order won (one statement each for all the orders), then one `added` event per entry.
   */
  private async earn(locked: LockedCards, orders: OrderEarning[]): Promise<PendingPoints[]> {
    const won = await this.orders.claim(
      locked,
      orders[0].order.projectId,
      orders.flatMap(({ order, earning }) => earning.map((e) => ({ orderId: order.id, earningRuleId: e.planned.rule.id, voucherId: e.planned.cardId, points: e.points }))),
    );
    const held: NewPendingPoints[] = [];
    const accruals: Movement[] = [];
    const causes = new Map<string, EventCause>();
    for (const { order, earning, cause } of orders) {
      const claimed = earning.filter((e) => won.has(claimKey(order.id, e.planned.rule.id)));
      if (!claimed.length) continue;
      causes.set(order.id, cause);
      const paid = this.paidEvent(order, cause);
      for (const e of claimed) {
        const rule = earningRuleRef(e.planned.rule);
        if (e.planned.rule.pendingPoints === null) {
          accruals.push({
            kind: 'ACCRUAL',
            card: { id: e.planned.cardId, projectId: order.projectId, campaignId: e.planned.rule.campaignId },
            points: e.points,
            expiry: { earningRuleId: e.planned.rule.id },
            row: { orderId: order.id, details: { order: paid.order, event: { id: paid.event.id, type: paid.event.type }, earning_rule: rule } },
          });
          continue;
        }
        held.push({
          id: hexId('lopp_'),
          projectId: order.projectId,
          voucherId: e.planned.cardId,
          campaignId: e.planned.rule.campaignId,
          customerId: order.customerId as string,
          orderId: order.id,
          earningRuleId: e.planned.rule.id,
          points: e.points,
          delayMs: e.planned.rule.pendingPoints.period_value * this.config.pendingPointsDayMs,
          details: { ...paid, earning_rule: rule },
        });
      }
    }
    if (!causes.size) return [];
    const created = await this.pending.insert(locked, held);
    // The accruals posted, and the entries' pending points with them (one UPDATE of the cards); then the entries'
    // events, which show the cards after both, their next expiration included.
    await this.posting.post(locked, accruals, { alongside: pendingDeltas(created) });
    await this.pending.added(locked, created, (entry) => causes.get(entry.orderId) as EventCause);
    return created;
  }

  /** The payment of the order as pending entries and transactions show where their points came from. */
  private paidEvent(order: Order, cause: EventCause): Omit<PendingPointsDetails, 'earning_rule'> {
    return {
      event: {
        id: timeId('evcus_'),
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
