import { Injectable } from '@nestjs/common';
import type { ProjectContext } from '../auth/auth.service.js';
import type { Campaign } from '../campaigns/campaign.entity.js';
import { ApiError } from '../common/errors/api-error.js';
import type { Customer } from '../customers/customer.entity.js';
import { CustomersService } from '../customers/customers.service.js';
import type { LoyaltyMemberDto } from '../members/dto/loyalty-member.dto.js';
import { MembersService } from '../members/members.service.js';
import { offerKey, RewardAssignmentRepository, type StoredAssignment } from '../rewards/reward-assignment.repository.js';
import type { Reward } from '../rewards/reward.entity.js';
import { RewardRepository } from '../rewards/reward.repository.js';
import type { RedeemRewardDto } from './dto/redemption.dto.js';
import { RedemptionErrors } from './redemption-errors.js';

/** A redemption as its request names it. */
export interface RedeemRequest {
  campaignIdOrName: string | null;
  code: string;
  dto: RedeemRewardDto;
}

/** What every redemption needs, read before its transaction: its card and campaign, the reward, its offer there, the card's holder. */
export interface Checked {
  card: LoyaltyMemberDto;
  campaign: Campaign;
  customer: Customer | null;
  reward: Reward;
  assignment: StoredAssignment;
}

/**
 * The reads of redemptions and every refusal that needs no lock, for a batch of them at once (RedemptionBatches):
 * the cards by one statement, then the rewards, their offers and the holders by one statement each. Each request
 * is checked in the order a lone redemption checks (so each gets the same error it would alone): the card (404),
 * `missing_reward`, the member and campaign switched off, the campaign's dates, the reward (404), its offer in the
 * card's campaign (404), a COIN reward without an order, the holder, a price above the balance, a used-up stock.
 */
@Injectable()
export class RedeemChecks {
  constructor(
    private readonly members: MembersService,
    private readonly customers: CustomersService,
    private readonly rewardRows: RewardRepository,
    private readonly assignments: RewardAssignmentRepository,
  ) {}

  async checkAll(project: ProjectContext, requests: RedeemRequest[]): Promise<PromiseSettledResult<Checked>[]> {
    const now = new Date();
    const cards = await this.members.getV1WithCampaignAll(project, requests);
    const found = requests.map((request, i): PromiseSettledResult<{ card: LoyaltyMemberDto; campaign: Campaign; rewardId: string }> => {
      const read = cards[i];
      if (read.status === 'rejected') return read;
      try {
        return { status: 'fulfilled', value: { ...read.value, rewardId: checkCard(read.value.card, read.value.campaign, request.dto, now) } };
      } catch (error) {
        return { status: 'rejected', reason: error };
      }
    });
    const ok = found.flatMap((f) => (f.status === 'fulfilled' ? [f.value] : []));
    if (!ok.length) return found as PromiseSettledResult<Checked>[];
    const rewards = await this.rewardRows.findToRedeemAll(project.id, ok.map((f) => f.rewardId));
    const offered = ok.flatMap(({ card, rewardId }) => (rewards.has(rewardId) ? [{ rewardId, campaignId: card.campaign_id }] : []));
    const holders = [...new Set(ok.flatMap(({ card }) => (card.holder_id ? [card.holder_id] : [])))];
    const offers = offered.length ? await this.assignments.findOffers(project.id, offered) : new Map<string, StoredAssignment>();
    const customers = holders.length ? await this.customers.byIds(project, holders) : new Map<string, Customer>();
    return found.map((f, i) => {
      if (f.status === 'rejected') return f;
      try {
        const { card, campaign, rewardId } = f.value;
        const reward = rewards.get(rewardId);
        if (!reward) throw ApiError.notFound('reward', rewardId);
        const assignment = offers.get(offerKey(reward.id, card.campaign_id));
        if (!assignment) {
          throw new ApiError(404, 'not_found', 'Resource not found', {
            details: `Cannot find reward_assignment of reward ${reward.id} in campaign ${card.campaign_id}`,
            resourceId: reward.id,
            resourceType: 'reward_assignment',
          });
        }
        if (reward.type === 'COIN' && !requests[i].dto.order) throw RedemptionErrors.missingOrder();
        const customer = card.holder_id ? (customers.get(card.holder_id) ?? null) : null;
        if (card.holder_id && !customer) throw ApiError.notFound('customer', card.holder_id);
        // A price the card cannot pay now is refused before anything else (a CAMPAIGN reward's enrolment in its campaign).
        if (assignment.points !== null && assignment.points > card.loyalty_card.balance) throw RedemptionErrors.pointsExceeded(card.code, assignment.points, card.loyalty_card.balance);
        // A stock already used up is refused here, before the card's queue; the unit taken in the transaction stays the check that counts.
        if (reward.stock !== null && reward.redeemed >= reward.stock) throw RedemptionErrors.outOfStock(reward.id);
        return { status: 'fulfilled', value: { card, campaign, customer, reward, assignment } };
      } catch (error) {
        return { status: 'rejected', reason: error };
      }
    });
  }
}

/** The checks of the card and its campaign; the reward id asked for. */
function checkCard(card: LoyaltyMemberDto, campaign: Campaign, dto: RedeemRewardDto, now: Date): string {
  if (!dto.reward) throw RedemptionErrors.missingReward();
  if (!card.active) throw RedemptionErrors.voucherDisabled('its member is INACTIVE');
  if (!campaign.active) throw RedemptionErrors.voucherDisabled(`campaign ${campaign.id} is switched off`);
  if (campaign.startDate && campaign.startDate > now) throw RedemptionErrors.notActive();
  if (campaign.expirationDate && campaign.expirationDate < now) throw RedemptionErrors.expired();
  return dto.reward.id;
}
