import { Injectable } from '@nestjs/common';
import { hexId } from '../../common/ids.js';
import { TransactionRunner, type Tx } from '../../database/transaction-runner.js';
import { type EventCause, EventsService } from '../../events/events.service.js';
import { EVENTS } from '../../events/event-types.js';
import { type CardBalance, CardRepository } from '../cards/card.repository.js';
import type { TransactionView } from '../ledger/dto/transaction.dto.js';
import { LedgerRepository, type NewTransaction } from '../ledger/ledger.repository.js';
import { PayloadRepository } from '../payloads/payload.repository.js';
import { activatedData, type OperationType } from '../payloads/payloads.js';
import type { PendingPoints } from './pending-points.entity.js';
import { PendingPointsRepository } from './pending-points.repository.js';

export interface ActivationRequest {
  /** Entries to activate if they are still PENDING. */
  ids: string[];
  /** Also activate up to this many other due entries (the sweep, and worker batches riding along). */
  extraDue: number;
  /** Restrict `ids` to one project (manual activation). */
  projectId?: string;
  operation: OperationType;
  cause: EventCause;
}

export interface Activation {
  entry: PendingPoints;
  /** The card right after this entry's activation (entries of one card in one batch add up in id order). */
  card: CardBalance;
  transaction: TransactionView;
}

/**
 * The one way pending points reach a balance, for the delayed job, the sweep and the manual endpoint
 * alike. One database transaction per batch holds, for every entry: the conditional PENDING → ACTIVATED
 * update, the card credit, one PENDING_POINTS_ACTIVATION ledger row and one `…pending_points.activated`
 * event. An entry that is no longer PENDING is simply not in the batch, so racing callers credit it once.
 */
@Injectable()
export class ActivationService {
  constructor(
    private readonly transactions: TransactionRunner,
    private readonly pending: PendingPointsRepository,
    private readonly cards: CardRepository,
    private readonly ledger: LedgerRepository,
    private readonly payloads: PayloadRepository,
    private readonly events: EventsService,
  ) {}

  async activate(request: ActivationRequest): Promise<Activation[]> {
    return this.transactions.run(async (tx) => {
      const requested = await this.pending.activate(tx, request.ids, request.projectId);
      const extra = request.extraDue > 0 ? await this.pending.activateDue(tx, request.extraDue) : [];
      return this.settle(tx, [...requested, ...extra], request.operation, request.cause);
    });
  }

  /** Activates due entries in batches until none is left; returns how many. */
  async sweep(batchSize: number, cause: EventCause): Promise<number> {
    let total = 0;
    for (;;) {
      const done = await this.activate({ ids: [], extraDue: batchSize, operation: 'AUTOMATIC', cause });
      total += done.length;
      if (done.length < batchSize) return total;
    }
  }

  private async settle(tx: Tx, entries: PendingPoints[], operation: OperationType, cause: EventCause): Promise<Activation[]> {
    if (!entries.length) return [];
    // A card's entries apply in id order, so the ledger's balances and the events' cards read as a sequence.
    entries.sort((a, b) => (a.voucherId === b.voucherId ? (a.id < b.id ? -1 : 1) : a.voucherId < b.voucherId ? -1 : 1));
    const after = await this.cards.apply(tx, entries.map((entry) => ({ cardId: entry.voucherId, points: entry.points, pending: -entry.points })));
    const running = runningBalances(entries, after);
    const rows = await this.payloads.load(tx, {
      campaignIds: entries.map((e) => e.campaignId),
      customerIds: entries.map((e) => e.customerId),
      orderIds: entries.map((e) => e.orderId),
      cardIds: entries.map((e) => e.voucherId),
    });
    const transactions: NewTransaction[] = entries.map((entry, i) => ({
      id: hexId('vtx_'),
      projectId: entry.projectId,
      voucherId: entry.voucherId,
      campaignId: entry.campaignId,
      type: 'PENDING_POINTS_ACTIVATION',
      points: entry.points,
      balanceAfter: running[i].balance,
      orderId: entry.orderId,
      pendingPointsId: entry.id,
      details: {
        balance: {
          type: 'loyalty_card',
          total: running[i].points,
          object: 'balance',
          points: entry.points,
          balance: running[i].balance,
          related_object: { id: entry.voucherId, type: 'voucher' },
        },
        order: entry.details.order,
        event: { id: entry.details.event.id, type: entry.details.event.type },
        earning_rule: entry.details.earning_rule,
        pending_points: { id: entry.id },
      },
    }));
    const createdAt = (await this.ledger.insert(tx, transactions)) ?? new Date();
    const activations = entries.map((entry, i): Activation => ({
      entry,
      card: running[i],
      transaction: { ...transactions[i], createdAt },
    }));
    await this.events.record(
      tx,
      activations.map(({ entry, card, transaction }) => ({
        projectId: entry.projectId,
        type: EVENTS.CUSTOMER.VOUCHER.LOYALTY_CARD.PENDING_POINTS.ACTIVATED,
        customerId: entry.customerId,
        cause,
        data: activatedData(rows, entry, card, transaction, operation),
      })),
    );
    return activations;
  }
}

/**
 * Each entry's card right after it: the card's final columns minus what later entries of the same card
 * in this batch added. `entries` are sorted by card, then id.
 */
function runningBalances(entries: PendingPoints[], after: Map<string, CardBalance>): CardBalance[] {
  const result: CardBalance[] = new Array<CardBalance>(entries.length);
  for (let end = entries.length - 1; end >= 0; ) {
    const cardId = entries[end].voucherId;
    const final = after.get(cardId) as CardBalance;
    let later = 0;
    let i = end;
    for (; i >= 0 && entries[i].voucherId === cardId; i -= 1) {
      // Points move from pending to balance: before the later entries, the balance was lower and the
      // pending total higher by what they moved.
      result[i] = { id: cardId, points: final.points - later, balance: final.balance - later, pendingPoints: final.pendingPoints + later };
      later += entries[i].points;
    }
    end = i;
  }
  return result;
}
