import { Injectable, Logger } from '@nestjs/common';
import type { ProjectContext } from '../../auth/auth.service.js';
import { CampaignsService } from '../../campaigns/campaigns.service.js';
import { ApiError } from '../../common/errors/api-error.js';
import { type CardBalance, type CardDelta, CardRepository, type LockedCards } from '../../cards/card.repository.js';
import { dataError } from '../../common/errors/infrastructure-errors.js';
import { TransactionRunner, type Tx } from '../../database/transaction-runner.js';
import { type EventCause, EVENTS, type EventType, requestCause } from '../../events/recording/event-recording.js';
import type { CardRef } from '../../members/member-card.repository.js';
import { MembersService } from '../../members/members.service.js';
import { JobQueueService } from '../../queue/job-queue.service.js';
import { JobName } from '../../queue/queue.definitions.js';
import { cohortsOf, RecentCohorts } from './activation-cohorts.js';
import { ActivationService } from './activation.service.js';
import { type OperationType, PendingEventsRepository } from './pending-events.repository.js';
import {
  type ActivationBalanceDto,
  type ListPendingPointsQueryDto,
  type PendingBalanceDto,
  type PendingPointsListDto,
  toPendingPointsDto,
} from './dto/pending-points.dto.js';
import type { PendingPoints } from './pending-points.entity.js';
import { type NewPendingPoints, PendingPointsRepository } from './pending-points.repository.js';

const PENDING = EVENTS.CUSTOMER.VOUCHER.LOYALTY_CARD.PENDING_POINTS;

/** What new entries add to their cards' pending points (the earning's posting applies them with its accruals). */
export function pendingDeltas(entries: PendingPoints[]): CardDelta[] {
  return entries.map((entry) => ({ cardId: entry.voucherId, pending: entry.points }));
}

/** Pending entries: made by earning, listed, and activated, adjusted or canceled by hand. */
@Injectable()
export class PendingPointsService {
  private readonly logger = new Logger(PendingPointsService.name);
  private readonly cohorts = new RecentCohorts();

  constructor(
    private readonly transactions: TransactionRunner,
    private readonly pending: PendingPointsRepository,
    private readonly cards: CardRepository,
    private readonly activation: ActivationService,
    private readonly events: PendingEventsRepository,
    private readonly campaigns: CampaignsService,
    private readonly members: MembersService,
    private readonly jobs: JobQueueService,
  ) {}

  /**
   * Inside the earning transaction, its cards locked: the entries. Their cards' pending totals are changed by the
   * caller's posting (`pendingDeltas`, alongside its accruals: one UPDATE of the cards), then `added` tells them.
   */
  async insert(locked: LockedCards, entries: NewPendingPoints[]): Promise<PendingPoints[]> {
    return this.pending.insert(locked, entries);
  }

  /** After the entries' cards changed: one `added` event per entry, showing its card as it now is, each with its own cause. */
  async added(locked: LockedCards, entries: PendingPoints[], causeOf: (entry: PendingPoints) => EventCause): Promise<void> {
    await this.events.record(locked.tx, entries.map((entry) => ({ id: entry.id, change: entry.points, cause: causeOf(entry) })), PENDING.ADDED, 'AUTOMATIC');
  }

  /** Inside the order's transaction (its row locked): every PENDING entry of a canceled order is canceled. */
  async cancelForOrder(tx: Tx, orderId: string, cause: EventCause): Promise<PendingPoints[]> {
    const locked = await this.cards.lockForOrder(tx, orderId);
    const canceled = await this.pending.cancel(locked, { orderId });
    await this.changed(locked, canceled, canceled.map((e) => -e.points), PENDING.CANCELED, 'AUTOMATIC', cause);
    return canceled;
  }

  /**
   * After commit: a delayed job per due-moment cohort (project and window of ACTIVATION_COHORT_MS, 250 ms), firing
   * at the window's end, unless this process scheduled it already. If Redis refuses, the entries are safe in
   * PostgreSQL and the worker's sweep activates them once due.
   */
  async schedule(entries: PendingPoints[]): Promise<void> {
    const cohorts = this.cohorts.unscheduled(cohortsOf(entries));
    if (!cohorts.length) return;
    const now = Date.now();
    try {
      await this.jobs.enqueueMany(
        JobName.ActivateDuePendingPoints,
        cohorts.map((cohort) => ({ data: { projectId: cohort.projectId, dueAt: cohort.dueAt }, jobId: cohort.jobId, delay: Math.max(0, cohort.dueAt - now) })),
      );
    } catch (error) {
      this.cohorts.failed(cohorts);
      this.logger.warn({ err: error, entries: entries.length }, 'could not schedule pending points activation; the sweep will activate them when due');
    }
  }

  async list(project: ProjectContext, where: { campaignIdOrName?: string; code?: string }, query: ListPendingPointsQueryDto): Promise<PendingPointsListDto> {
    const campaignId = where.campaignIdOrName !== undefined ? (await this.campaigns.find(project, where.campaignIdOrName)).campaign.id : undefined;
    const card = where.code !== undefined ? await this.card(project, where.code, campaignId) : undefined;
    const limit = query.limit ?? 10;
    const rows = await this.pending.list({
      projectId: project.id,
      campaignId: card ? undefined : campaignId,
      voucherId: card?.id,
      limit: limit + 1,
      desc: query.order === '-id',
      startingAfterId: query.starting_after_id,
    });
    const page = rows.slice(0, limit);
    const list: PendingPointsListDto = { object: 'list', data_ref: 'data', data: page.map(toPendingPointsDto), has_more: rows.length > limit };
    if (list.has_more) list.more_starting_after = page.at(-1)?.id;
    return list;
  }

  async activate(project: ProjectContext, code: string, entryId: string): Promise<ActivationBalanceDto> {
    const card = await this.card(project, code);
    await this.entryOf(project, card, entryId);
    const done = await this.activation.activateManually(project.id, card.id, entryId, requestCause(project)).catch((error: unknown) => {
      const refused = dataError(error);
      if (!refused) throw error;
      throw new ApiError(400, 'invalid_amount', 'Invalid Amount', { details: `The pending points cannot be activated: ${refused.message}`, resourceId: entryId, resourceType: 'pending_points' });
    });
    if (!done) throw await this.stateError(project, entryId, 'activated');
    return {
      points: done.points,
      total: done.total,
      balance: done.balance,
      type: 'loyalty_card',
      object: 'balance',
      related_object: { type: 'voucher', id: card.id },
      operation_type: 'MANUAL',
    };
  }

  async adjust(project: ProjectContext, code: string, entryId: string, points: number): Promise<PendingBalanceDto> {
    const card = await this.card(project, code);
    await this.entryOf(project, card, entryId);
    const after = await this.transactions.run(async (tx) => {
      const locked = await this.cards.lock(tx, [card.id]);
      // Gone since it was looked up (its campaign deleted for good): so is the entry, 404 below.
      if (!locked.has(card.id)) return null;
      const entry = await this.pending.adjust(locked, entryId, project.id, points);
      if (!entry) return null;
      const cards = await this.changed(locked, [entry], [points], PENDING.UPDATED, 'MANUAL', requestCause(project));
      return cards.get(card.id) ?? null;
    });
    if (!after) {
      const current = await this.pending.find(project.id, entryId);
      if (current?.status !== 'PENDING') throw await this.stateError(project, entryId, 'updated');
      throw new ApiError(400, 'invalid_amount', 'Invalid Amount', {
        details: `Amount has to be a valid positive number: ${current.points} ${points < 0 ? '-' : '+'} ${Math.abs(points)} leaves ${current.points + points} pending points`,
        resourceId: entryId,
        resourceType: 'pending_points',
      });
    }
    return { points, total: after.pendingPoints, object: 'balance', related_object: { type: 'voucher', id: card.id }, operation_type: 'MANUAL' };
  }

  async cancel(project: ProjectContext, code: string, entryId: string): Promise<void> {
    const card = await this.card(project, code);
    await this.entryOf(project, card, entryId);
    const canceled = await this.transactions.run(async (tx) => {
      const locked = await this.cards.lock(tx, [card.id]);
      if (!locked.has(card.id)) return false;
      const rows = await this.pending.cancel(locked, { id: entryId, projectId: project.id });
      await this.changed(locked, rows, rows.map((e) => -e.points), PENDING.CANCELED, 'MANUAL', requestCause(project));
      return rows.length > 0;
    });
    if (!canceled) throw await this.stateError(project, entryId, 'canceled');
  }

  /** The cards' pending totals follow the entries' change, and each entry gets its event. */
  private async changed(locked: LockedCards, entries: PendingPoints[], changes: number[], type: EventType, operation: OperationType, cause: EventCause): Promise<Map<string, CardBalance>> {
    const canceled = type === PENDING.CANCELED;
    const after = await this.cards.apply(locked, entries.map((entry, i) => ({ cardId: entry.voucherId, pending: changes[i], canceled: canceled ? -changes[i] : 0 })));
    if (!entries.length) return after;
    await this.events.record(locked.tx, entries.map((entry, i) => ({ id: entry.id, change: changes[i], cause })), type, operation);
    return after;
  }

  private async card(project: ProjectContext, code: string, campaignId?: string): Promise<CardRef> {
    const card = await this.members.findPublishedCard(project.id, code, campaignId);
    if (!card) throw ApiError.notFound('voucher', code);
    return card;
  }

  private async entryOf(project: ProjectContext, card: CardRef, entryId: string): Promise<PendingPoints> {
    const entry = await this.pending.find(project.id, entryId);
    if (!entry || entry.voucherId !== card.id) throw ApiError.notFound('pending_points', entryId);
    return entry;
  }

  private async stateError(project: ProjectContext, entryId: string, verb: 'activated' | 'updated' | 'canceled'): Promise<ApiError> {
    const entry = await this.pending.find(project.id, entryId);
    // Deleted meanwhile, with its card (a campaign deleted for good).
    if (!entry) return ApiError.notFound('pending_points', entryId);
    return new ApiError(400, 'invalid_pending_points_state', 'Invalid pending points state', {
      details: `Only pending points in 'PENDING' status can be ${verb}. Current status: '${entry.status}'.`,
      resourceId: entryId,
      resourceType: 'pending_points',
    });
  }
}
