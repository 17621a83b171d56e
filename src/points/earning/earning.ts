import type { EarningLoyalty } from './earning-rule.entity.js';

/** Points a rule gives for an order amount (minor units): fixed, or `floor(amount / every) × points`. */
export function pointsFor(loyalty: EarningLoyalty, amount: number): number {
  if (loyalty.type === 'FIXED') return loyalty.points;
  const { every, points } = loyalty.order.amount;
  return Math.floor(amount / every) * points;
}
