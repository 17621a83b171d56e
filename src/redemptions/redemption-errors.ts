import { ApiError } from '../common/errors/api-error.js';
import { hexId } from '../common/ids.js';

/**
 * The errors of redeem and rollback, as Voucherify answers them (docs/errors.md). A refused redemption's
 * `resource_id` is a failed redemption's id (`rf_…`, Voucherify's; not stored here), a refused rollback's `rrf_…`.
 */
export const RedemptionErrors = {
  missingReward(): ApiError {
    return new ApiError(400, 'missing_reward', 'Missing reward', { details: 'A reward is required when redeeming a LOYALTY_CARD', resourceId: hexId('rf_'), resourceType: 'redemption' });
  },
  missingOrder(): ApiError {
    return new ApiError(400, 'missing_order', 'Missing order', { details: 'An order is required when redeeming a LOYALTY_CARD', resourceId: hexId('rf_'), resourceType: 'redemption' });
  },
  pointsExceeded(code: string, points: number, balance: number): ApiError {
    return new ApiError(400, 'loyalty_card_points_exceeded', 'loyalty card points exceeded', {
      details: `There are not enough loyalty points on the card ${code}: ${points} needed, its balance is ${balance}.`,
      resourceId: hexId('rf_'),
      resourceType: 'redemption',
    });
  },
  voucherDisabled(why: string): ApiError {
    return new ApiError(400, 'voucher_disabled', 'voucher is disabled', { details: `The voucher has been disabled and cannot be used: ${why}.`, resourceId: hexId('rf_'), resourceType: 'redemption' });
  },
  notActive(): ApiError {
    return new ApiError(400, 'voucher_not_active', 'voucher not active', { details: 'The voucher\'s campaign has not started yet.', resourceId: hexId('rf_'), resourceType: 'redemption' });
  },
  expired(): ApiError {
    return new ApiError(400, 'voucher_expired', 'voucher expired', { details: 'The voucher\'s campaign has ended.', resourceId: hexId('rf_'), resourceType: 'redemption' });
  },
  outOfStock(rewardId: string): ApiError {
    return new ApiError(400, 'quantity_exceeded', 'quantity exceeded', { details: `Reward ${rewardId} has no unit left in stock.`, resourceId: hexId('rf_'), resourceType: 'redemption' });
  },
  noTargetCard(campaignId: string, why: string): ApiError {
    return new ApiError(400, 'no_voucher_suitable_for_publication', 'Couldn\'t find any voucher suitable for publication.', {
      details: `The reward credits a card in campaign ${campaignId}, and the customer has none there nor can get one: ${why}`,
      resourceId: campaignId,
      resourceType: 'campaign',
    });
  },
  alreadyRolledBack(): ApiError {
    return new ApiError(400, 'already_rolled_back', 'Already rolled back', { details: 'Redemption has been already rolled back.', resourceId: hexId('rrf_'), resourceType: 'redemption_rollback' });
  },
  notRestorable(why: string): ApiError {
    return new ApiError(400, 'invalid_redemption', 'Invalid redemption', { details: why, resourceId: hexId('rrf_'), resourceType: 'redemption_rollback' });
  },
};
