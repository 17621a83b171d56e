import type { Redemption } from '../redemption.entity.js';
import type { LoyaltyRedemptionDto, RedemptionRollbackDto } from './redemption.dto.js';

/** A redemption as answered (redeem, GET, lists): its row and what it kept of the moment (`snapshot`); its rollback, if any. */
export function toRedemptionDto(row: Redemption, rollback: Redemption | null): LoyaltyRedemptionDto {
  const { snapshot } = row;
  return {
    id: row.id,
    object: 'redemption',
    date: row.createdAt.toISOString(),
    customer_id: row.customerId,
    tracking_id: row.trackingId,
    metadata: row.metadata,
    amount: row.points,
    result: 'SUCCESS',
    status: row.status,
    order: snapshot.order,
    customer: snapshot.customer,
    related_object_type: 'voucher',
    related_object_id: row.voucherId,
    voucher: snapshot.voucher,
    reward: snapshot.reward,
    loyalty_card: { points: row.points },
    channel: snapshot.channel,
    related_redemptions: { rollbacks: rollback ? [{ id: rollback.id, date: rollback.createdAt.toISOString() }] : [], redemptions: [] },
  };
}

/** A rollback as answered (rollback, GET, lists). */
export function toRollbackDto(row: Redemption): RedemptionRollbackDto {
  const { snapshot } = row;
  return {
    id: row.id,
    object: 'redemption_rollback',
    date: row.createdAt.toISOString(),
    customer_id: row.customerId,
    tracking_id: row.trackingId,
    metadata: row.metadata,
    amount: row.points,
    redemption: row.redemptionId as string,
    reason: row.reason,
    result: 'SUCCESS',
    status: 'SUCCEEDED',
    order: snapshot.order,
    customer: snapshot.customer,
    related_object_type: 'voucher',
    related_object_id: row.voucherId,
    voucher: snapshot.voucher,
    reward: snapshot.reward,
    loyalty_card: { points: row.points },
    channel: snapshot.channel,
  };
}

/** Either kind of row, as answered. */
export function toEntryDto(row: Redemption, rollbacks: Map<string, Redemption>): LoyaltyRedemptionDto | RedemptionRollbackDto {
  return row.object === 'redemption' ? toRedemptionDto(row, rollbacks.get(row.id) ?? null) : toRollbackDto(row);
}
