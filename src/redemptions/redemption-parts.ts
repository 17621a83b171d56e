import type { ProjectContext } from '../auth/auth.service.js';
import type { CardBalance } from '../cards/card.repository.js';
import type { Customer } from '../customers/customer.entity.js';
import type { LoyaltyMemberDto } from '../members/dto/loyalty-member.dto.js';
import type { PostedMovement } from '../points/ledger/posting.service.js';
import { toRewardDto } from '../rewards/dto/reward.dto.js';
import type { StoredAssignment } from '../rewards/reward-assignment.repository.js';
import type { Reward } from '../rewards/reward.entity.js';
import type { CardState, NewRedemption } from './redemption.repository.js';

/**
 * A COIN ("pay with points") redemption's points and the discount they buy, in the order's minor units
 * (docs/rewards.md): `points_ratio` points are worth `exchange_ratio` units of currency (× 100 minor units).
 * With `requested` points: those, at most the balance, the discount capped at the order's amount. Without: the
 * points that pay the whole order, rounded up to whole `points_ratio` units, at most the whole units the balance
 * holds. Null: the balance cannot pay (requested more than it, or not one unit).
 */
export function coinPoints(coin: { exchange_ratio: number; points_ratio: number }, amount: number, requested: number | undefined, balance: number): { points: number; discount: number } | null {
  const ratio = coin.points_ratio;
  const worth = (points: number) => Math.min(amount, Math.round((points / ratio) * coin.exchange_ratio * 100));
  if (requested !== undefined) return requested > balance ? null : { points: requested, discount: worth(requested) };
  // A tiny tolerance: 45000 / 2000 is 22.5 exactly, but a ratio like 0.01 is not exact in binary.
  const units = Math.ceil(amount / (coin.exchange_ratio * 100) - 1e-9);
  const points = Math.min(units, Math.floor(balance / ratio)) * ratio;
  return points < 1 ? null : { points, discount: worth(points) };
}

/** Voucherify's `customer` of a redemption (its SimpleCustomer): fields without a value left out, as the event payloads have them. */
export function customerJson(customer: Customer): Record<string, unknown> {
  return {
    id: customer.id,
    ...(customer.name !== null ? { name: customer.name } : {}),
    ...(customer.email !== null ? { email: customer.email } : {}),
    ...(customer.sourceId !== null ? { source_id: customer.sourceId } : {}),
    metadata: customer.metadata,
    object: 'customer',
  };
}

/** The card's v1 voucher object as read before the change, with the columns the change moved as they are after it. */
export function voucherAfter(card: LoyaltyMemberDto, state: CardState | undefined): Record<string, unknown> {
  if (!state) return { ...card };
  return {
    ...card,
    loyalty_card: { ...card.loyalty_card, points: state.points, balance: state.balance },
    redemption: { ...card.redemption, redeemed_points: state.redeemedPoints, redeemed_quantity: state.redeemedQuantity, url: `/v1/vouchers/${encodeURIComponent(card.code)}/redemption` },
    ...(state.updatedAt ? { updated_at: state.updatedAt.toISOString() } : {}),
  };
}

/** The card's state after a posting: its own columns (code, campaign, holder) as read before, its point columns as the posting left them. */
export function stateOf(card: LoyaltyMemberDto, after: CardBalance | undefined): CardState | undefined {
  if (!after) return undefined;
  return {
    id: card.id,
    code: card.code,
    campaignId: card.campaign_id,
    holderId: card.holder_id,
    points: after.points,
    balance: after.balance,
    redeemedPoints: after.redeemedPoints,
    redeemedQuantity: after.redeemedQuantity,
    createdAt: new Date(card.created_at),
    updatedAt: after.updatedAt,
  };
}

/** Voucherify's RedemptionRewardResult: the reward without its stock counts, with the assignment (and a MATERIAL reward's product and SKU). */
export function rewardResult(reward: Reward, assignment: StoredAssignment): Record<string, unknown> {
  const { stock: _stock, redeemed: _redeemed, attributes: _attributes, ...rewardDto } = toRewardDto(reward);
  const result: Record<string, unknown> = { ...rewardDto, assignment_id: assignment.id };
  if (reward.type === 'MATERIAL') {
    const { product } = reward.parameters as { product: { id: string; sku_id: string | null } };
    result.product = { id: product.id, object: 'product' };
    if (product.sku_id) result.sku = { id: product.sku_id, product_id: product.id, object: 'sku' };
  }
  return result;
}

/** What a redemption's row is made of, besides what its reward's type adds (`target`, `order`). */
export interface RedemptionRowParts {
  id: string;
  project: ProjectContext;
  card: LoyaltyMemberDto;
  customer: Customer | null;
  reward: Reward;
  assignment: StoredAssignment;
  points: number;
  /** The REDEMPTION movement as posted: its ledger row and the buckets it drained. */
  posted: PostedMovement;
  /** The card right after the redemption (undefined: as read before). */
  state: CardState | undefined;
  rewardJson: Record<string, unknown>;
  metadata: Record<string, unknown> | null;
  target?: { cardId: string; points: number } | null;
  order?: { id: string; json: Record<string, unknown> } | null;
}

/** A SUCCEEDED redemption's row, its snapshot what the answers show. */
export function succeededRow(parts: RedemptionRowParts): NewRedemption {
  const { id, project, card, customer, reward, assignment, points, posted } = parts;
  return {
    id,
    projectId: project.id,
    object: 'redemption',
    redemptionId: null,
    status: 'SUCCEEDED',
    voucherId: card.id,
    campaignId: card.campaign_id,
    customerId: customer?.id ?? null,
    rewardId: reward.id,
    assignmentId: assignment.id,
    points,
    buckets: posted.buckets.map((b) => ({ id: b.id, points: b.points, expiresAt: b.expiresAt })),
    targetCardId: parts.target?.cardId ?? null,
    targetPoints: parts.target?.points ?? null,
    orderId: parts.order?.id ?? null,
    trackingId: customer?.sourceId ?? null,
    reason: null,
    metadata: parts.metadata,
    transactionId: posted.transaction.id,
    snapshot: {
      customer: customer ? customerJson(customer) : null,
      voucher: voucherAfter(card, parts.state),
      reward: parts.rewardJson,
      order: parts.order?.json ?? null,
      channel: { channel_id: project.apiKey?.appId ?? 'API', channel_type: 'API' },
    },
  };
}
