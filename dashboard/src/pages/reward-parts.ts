import type { Schemas } from '../api/client';

export type Reward = Schemas['RewardDto'];
export type Assignment = Schemas['RewardAssignmentDto'];

/** What a reward gives, in one line. */
export function rewardSummary(reward: Reward): string {
  const { product, coin, campaign } = reward.parameters;
  if (product) return `Product ${product.id}${product.sku_id ? `, SKU ${product.sku_id}` : ''}`;
  if (coin) return `${coin.points_ratio} points = ${coin.exchange_ratio} off an order`;
  if (campaign) return `${campaign.balance} points on a card of ${campaign.id}`;
  return '—';
}

/** The units left: stock less redeemed; null stock is unlimited. */
export function stockLeft(reward: Reward): string {
  if (reward.stock === null || reward.stock === undefined) return 'unlimited';
  return String(Math.max(0, reward.stock - (reward.redeemed ?? 0)));
}
