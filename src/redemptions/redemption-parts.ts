import type { Customer } from '../customers/customer.entity.js';
import type { LoyaltyMemberDto } from '../members/dto/loyalty-member.dto.js';
import type { CardState } from './redemption.repository.js';

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
