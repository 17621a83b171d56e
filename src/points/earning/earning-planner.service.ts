import { Injectable, Logger } from '@nestjs/common';
import type { ProjectContext } from '../../auth/auth.service.js';
import { ApiError } from '../../common/errors/api-error.js';
import { MembersService } from '../../members/members.service.js';
import type { Customer } from '../../customers/customer.entity.js';
import type { EarningRuleNow } from './earning-rule.repository.js';
import { EarningRulesService } from './earning-rules.service.js';
import { pointsFor } from './earning.js';

/** A card of the customer and a rule it earns under. */
export interface PlannedEarning {
  rule: EarningRuleNow;
  cardId: string;
}

/** Pending entries and ledger rows hold their points as int4; one order may not earn more than this under one rule. */
export const MAX_POINTS_PER_EARNING = 1_000_000_000;

/**
 * Which rules a paid order of this customer earns under, and on which card: every rule that earns now,
 * of every campaign where the customer is an ACTIVE member, or joins now because the campaign has
 * `auto_join`. Runs before the order's transaction (enrolment has its own); the points are counted in it.
 */
@Injectable()
export class EarningPlanner {
  private readonly logger = new Logger(EarningPlanner.name);

  constructor(
    private readonly rules: EarningRulesService,
    private readonly members: MembersService,
  ) {}

  /** `customer`: the order's customer as the request resolved it, or its id when the order already had it (auto-join then reads it). */
  async plan(project: ProjectContext, customer: Customer | string): Promise<PlannedEarning[]> {
    const [planned] = await this.planAll(project, [customer]);
    if (planned.status === 'rejected') throw planned.reason;
    return planned.value;
  }

  /**
   * `plan` for several customers (distinct) at once, a batch of paid orders: the rules and the cards read once for
   * all; auto-join, when a customer needs it, customer by customer. Each customer's plan or its own error, in order.
   */
  async planAll(project: ProjectContext, customers: (Customer | string)[]): Promise<PromiseSettledResult<PlannedEarning[]>[]> {
    const rules = await this.rules.earningNow(project);
    if (!rules.length) return customers.map(() => ({ status: 'fulfilled', value: [] }));
    const idOf = (customer: Customer | string) => (typeof customer === 'string' ? customer : customer.id);
    const cards = await this.members.activeCardsOfAll(project.id, customers.map(idOf), campaignsOf(rules));
    return Promise.allSettled(customers.map((customer) => this.complete(project, rules, customer, cards.get(idOf(customer)) ?? new Map<string, string>())));
  }

  /** The plan from the rules and the customer's cards by campaign (`cards`, completed here by auto-join). */
  private async complete(project: ProjectContext, rules: EarningRuleNow[], customer: Customer | string, cards: Map<string, string>): Promise<PlannedEarning[]> {
    const customerId = typeof customer === 'string' ? customer : customer.id;
    for (const rule of rules) {
      if (cards.has(rule.campaignId) || !rule.campaignAutoJoin) continue;
      // Auto-join only a customer who is not a member at all: an INACTIVE member does not earn. A member made
      // since the cards were read (a concurrent first order of the same customer joined) earns on its card.
      if (await this.members.hasLiveMembership(project.id, customerId, rule.campaignId)) {
        const card = (await this.members.activeCardsOf(project.id, customerId, [rule.campaignId])).get(rule.campaignId);
        if (card) cards.set(rule.campaignId, card);
        continue;
      }
      const joined = (await this.members.autoJoin(project, rule.campaignId, customer)) ?? (await this.members.activeCardsOf(project.id, customerId, [rule.campaignId])).get(rule.campaignId);
      if (joined) cards.set(rule.campaignId, joined);
      else this.logger.warn({ campaign_id: rule.campaignId, customer_id: customerId }, 'auto-join found no card to give; the order earns nothing in this campaign');
    }
    return rules.filter((rule) => cards.has(rule.campaignId)).map((rule) => ({ rule, cardId: cards.get(rule.campaignId) as string }));
  }
}

function campaignsOf(rules: EarningRuleNow[]): string[] {
  return [...new Set(rules.map((rule) => rule.campaignId))];
}

/** The points a planned rule gives for an amount; 400 when it would overflow a card. */
export function earnedPoints(planned: PlannedEarning, amount: number): number {
  const points = pointsFor(planned.rule.loyalty, amount);
  if (points > MAX_POINTS_PER_EARNING) {
    throw ApiError.invalidPayload(`amount ${amount} would earn ${points} points under earning rule ${planned.rule.id}; at most ${MAX_POINTS_PER_EARNING} per order and rule`);
  }
  return points;
}
