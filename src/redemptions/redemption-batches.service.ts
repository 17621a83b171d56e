import { Injectable } from '@nestjs/common';
import type { ProjectContext } from '../auth/auth.service.js';
import { type CardBalance, CardRepository, type LockedCards } from '../cards/card.repository.js';
import { type Collector, requestCollector } from '../common/batching/collector.js';
import { ApiError } from '../common/errors/api-error.js';
import { hexId } from '../common/ids.js';
import { AppConfig } from '../config/app-config.js';
import { Metrics } from '../metrics/metrics.js';
import { TransactionRunner } from '../database/transaction-runner.js';
import type { EventCause } from '../events/recording/event-recording.js';
import type { IdempotentDone } from '../idempotency/idempotency.service.js';
import { type Movement, PointsPosting } from '../points/ledger/posting.service.js';
import type { Reward } from '../rewards/reward.entity.js';
import { RewardRepository } from '../rewards/reward.repository.js';
import { type Checked, RedeemChecks, type RedeemRequest } from './redeem-checks.service.js';
import type { LoyaltyRedemptionDto } from './dto/redemption.dto.js';
import { toRedemptionDto } from './dto/redemption-answers.js';
import { rewardResult, stateOf, succeededRow } from './redemption-parts.js';
import { RedemptionErrors } from './redemption-errors.js';
import { RedemptionEventsRepository } from './redemption-events.repository.js';
import { type CardState, RedemptionRepository } from './redemption.repository.js';

/** A redemption request waiting for its batch. */
export interface BatchedRequest extends RedeemRequest {
  project: ProjectContext;
  cause: EventCause;
  /** Stores the answer with the request's Idempotency-Key, in the batch's transaction. */
  done: IdempotentDone<LoyaltyRedemptionDto>;
}

/** A MATERIAL redemption of the batch, checked. */
interface BatchedRedemption extends Checked {
  project: ProjectContext;
  metadata: Record<string, unknown> | null;
  cause: EventCause;
  done: IdempotentDone<LoyaltyRedemptionDto>;
}

/** What the batch answers a request: a MATERIAL reward's redemption made, or another reward's checks for RedeemService to go on alone. */
export type BatchAnswer = { answer: LoyaltyRedemptionDto } | { alone: Checked };

/** A redemption of the batch that its card and its reward's stock can pay. */
interface Accepted {
  at: number;
  item: BatchedRedemption;
  id: string;
  points: number;
}

type Outcome = PromiseSettledResult<LoyaltyRedemptionDto>;
type BatchOutcome = PromiseSettledResult<BatchAnswer>;

/**
 * Concurrent redemptions of a project, by the batch (issue 38's throughput, as paid orders are: docs/architecture.md,
 * "Requests by the batch"). A batch reads its requests' cards, rewards, offers and holders by one statement each
 * and makes every refusal that needs no lock (RedeemChecks); a COIN or CAMPAIGN reward's redemption is handed
 * back to RedeemService to go on alone. The MATERIAL ones are written in one transaction, in the lock order of a
 * lone redemption: the batch's cards locked in id order by one statement, then each reward's units taken by one
 * statement (the row held until the commit), then one posting of all the redemptions (one update of the cards,
 * one ledger statement, each debit draining its card's buckets soonest-expiring first), their rows and events by
 * one statement each. They are checked in their order of arrival against the balances the lock read and the
 * units taken, so each is refused or made exactly as if they had come one after the other; a refused one
 * (points, stock, its card gone) is answered its own 400 or 404 and writes nothing, and the others go on.
 */
@Injectable()
export class RedemptionBatches {
  private readonly collector: Collector<BatchedRequest, BatchOutcome>;

  constructor(
    private readonly transactions: TransactionRunner,
    private readonly checks: RedeemChecks,
    private readonly cards: CardRepository,
    private readonly posting: PointsPosting,
    private readonly redemptions: RedemptionRepository,
    private readonly events: RedemptionEventsRepository,
    private readonly rewardRows: RewardRepository,
    private readonly metrics: Metrics,
    config: AppConfig,
  ) {
    this.collector = requestCollector((requests) => this.run(requests), config.databasePool.waitMs);
  }

  async redeem(request: BatchedRequest): Promise<BatchAnswer> {
    const bytes = JSON.stringify(request.dto).length;
    // Several redemptions of one card may share a batch (they are checked in turn), so nothing conflicts.
    const outcome = await this.collector.submit(request.project.id, request, { bytes, conflict: hexId('') });
    if (outcome.status === 'rejected') throw outcome.reason;
    return outcome.value;
  }

  /** A batch: its checks, then one transaction for its MATERIAL redemptions. */
  private async run(requests: BatchedRequest[]): Promise<BatchOutcome[]> {
    const checked = await this.checks.checkAll(requests[0].project, requests);
    const outcomes: BatchOutcome[] = new Array(requests.length);
    const material: { at: number; item: BatchedRedemption }[] = [];
    checked.forEach((check, at) => {
      if (check.status === 'rejected') return void (outcomes[at] = check);
      if (check.value.reward.type !== 'MATERIAL') return void (outcomes[at] = { status: 'fulfilled', value: { alone: check.value } });
      const { project, dto, cause, done } = requests[at];
      material.push({ at, item: { ...check.value, project, metadata: dto.metadata ?? null, cause, done } });
    });
    if (material.length) {
      const written = await this.transactions.run((tx) => this.write(tx, material.map((m) => m.item)));
      material.forEach(({ at }, i) => {
        const result = written[i];
        outcomes[at] = result.status === 'fulfilled' ? { status: 'fulfilled', value: { answer: result.value } } : result;
      });
    }
    this.metrics.redemptionBatch(requests.length);
    return outcomes;
  }

  private async write(tx: LockedCards['tx'], items: BatchedRedemption[]): Promise<Outcome[]> {
    const projectId = items[0].project.id;
    const outcomes: Outcome[] = new Array(items.length);
    const locked = await this.cards.lock(tx, items.map((item) => item.card.id));
    const units = await this.takeUnits(locked, projectId, items);
    const balances = new Map([...locked.atLock].map(([id, card]) => [id, card.balance]));
    const accepted: Accepted[] = [];
    items.forEach((item, at) => {
      const { card, reward, assignment } = item;
      // Gone since it was looked up: its campaign was deleted for good (issue 36).
      if (!locked.has(card.id)) return void (outcomes[at] = { status: 'rejected', reason: ApiError.notFound('voucher', card.code) });
      const points = assignment.points ?? 0;
      const balance = balances.get(card.id) ?? 0;
      if (points > balance) return void (outcomes[at] = { status: 'rejected', reason: RedemptionErrors.pointsExceeded(card.code, points, balance) });
      const unit = units.get(reward.id);
      if (!unit || unit.left < 1) return void (outcomes[at] = { status: 'rejected', reason: RedemptionErrors.outOfStock(reward.id) });
      unit.left -= 1;
      balances.set(card.id, balance - points);
      accepted.push({ at, item, id: hexId('r_'), points });
    });
    // Units of a stock taken for redemptions refused for their points go back.
    for (const [rewardId, { left, counted }] of units) if (counted && left > 0) await this.rewardRows.returnUnits(tx, projectId, rewardId, left);
    if (!accepted.length) return outcomes;

    const answers = await this.post(locked, accepted);
    accepted.forEach(({ at }, i) => (outcomes[at] = { status: 'fulfilled', value: answers[i] }));
    return outcomes;
  }

  /** Per reward of the batch, the units taken for its redemptions whose card is locked, and whether a stock counted them (RewardRepository.takeUnits). */
  private async takeUnits(locked: LockedCards, projectId: string, items: BatchedRedemption[]): Promise<Map<string, { left: number; counted: boolean }>> {
    const wanted = new Map<string, { reward: Reward; count: number }>();
    for (const { card, reward } of items) {
      if (!locked.has(card.id)) continue;
      const entry = wanted.get(reward.id) ?? { reward, count: 0 };
      wanted.set(reward.id, { ...entry, count: entry.count + 1 });
    }
    const units = new Map<string, { left: number; counted: boolean }>();
    for (const { reward, count } of [...wanted.values()].sort((a, b) => (a.reward.id < b.reward.id ? -1 : 1))) {
      units.set(reward.id, await this.rewardRows.takeUnits(locked.tx, projectId, reward.id, count, reward.stock === null));
    }
    return units;
  }

  /** The accepted redemptions' points posted, then their rows, events and stored answers; their answers in their order. */
  private async post(locked: LockedCards, accepted: Accepted[]): Promise<LoyaltyRedemptionDto[]> {
    const movements: Movement[] = accepted.map(({ item: { project, card, reward }, id, points }) => ({
      kind: 'REDEMPTION',
      card: { id: card.id, projectId: project.id, campaignId: card.campaign_id },
      points,
      row: { orderId: null, details: { redemption: { id }, reward: { id: reward.id, name: reward.name } } },
    }));
    // Nothing changed the cards since their lock, and every debit was checked against the balances it read.
    const posting = await this.posting.post(locked, movements, { unchangedSinceLock: true });
    const states = cardsAfterEach(accepted, posting.cards);
    const rows = await this.redemptions.insertAll(
      locked,
      accepted.map(({ item, id, points }, i) =>
        succeededRow({ id, ...item, points, posted: posting.movements[i], state: states[i], rewardJson: rewardResult(item.reward, item.assignment) }),
      ),
    );
    const answers = rows.map((row) => toRedemptionDto(row, null));
    await this.events.redeemed(
      locked,
      rows.map((row, i) => ({ row, answer: answers[i], assignment: accepted[i].item.assignment, cause: accepted[i].item.cause, balance: states[i]?.balance ?? null })),
    );
    for (const [i, { item }] of accepted.entries()) await item.done(locked.tx, answers[i]);
    return answers;
  }
}

/**
 * Each redemption's card right after it: the card as the posting left it, less the redemptions of the same card
 * after it in the batch (their points back in the balance and out of the redemption counters).
 */
function cardsAfterEach(accepted: Accepted[], after: Map<string, CardBalance>): (CardState | undefined)[] {
  const later = new Map<string, { points: number; count: number }>();
  const states: (CardState | undefined)[] = new Array(accepted.length);
  for (let i = accepted.length - 1; i >= 0; i -= 1) {
    const { item, points } = accepted[i];
    const end = after.get(item.card.id);
    const next = later.get(item.card.id) ?? { points: 0, count: 0 };
    states[i] = stateOf(
      item.card,
      end && { ...end, balance: end.balance + next.points, redeemedPoints: end.redeemedPoints - next.points, redeemedQuantity: end.redeemedQuantity - next.count },
    );
    later.set(item.card.id, { points: next.points + points, count: next.count + 1 });
  }
  return states;
}
