import { EVENTS } from '../event-types.js';
import type { AttemptContext } from './delivery.types.js';

const PENDING = EVENTS.CUSTOMER.VOUCHER.LOYALTY_CARD.PENDING_POINTS;
const STATUS_AFTER: Record<string, string> = { [PENDING.ADDED]: 'PENDING', [PENDING.UPDATED]: 'PENDING', [PENDING.ACTIVATED]: 'ACTIVATED', [PENDING.CANCELED]: 'CANCELED' };

/**
 * The sample event of a test delivery (`POST /v1/distributions/{id}/test`): the shape of a real event of
 * the distribution's trigger, with `data.test` true and made-up ids marked `test`, so that a receiver can
 * try its parsing and its signature check, and tell a test from a real change. Built from the delivery
 * alone, so that every attempt sends the same bytes.
 */
export function testEventOf(delivery: Pick<AttemptContext, 'id' | 'createdAt' | 'trigger'>): NonNullable<AttemptContext['event']> {
  const at = delivery.createdAt.toISOString();
  const suffix = delivery.id.slice('whs_'.length);
  const customerId = `cust_test_${suffix}`;
  const voucherId = `v_test_${suffix}`;
  const activated = delivery.trigger === PENDING.ACTIVATED;
  return {
    id: `evtest_${suffix}`,
    type: delivery.trigger,
    createdAt: delivery.createdAt,
    entityId: customerId,
    groupId: `v-test-${suffix}`,
    eventSource: { channel: 'INTERNAL' },
    data: JSON.stringify({
      test: true,
      customer: { id: customerId, source_id: 'test-customer', name: 'Test Customer', email: null, metadata: {}, object: 'customer' },
      voucher: {
        id: voucherId,
        code: 'TEST-CARD',
        type: 'LOYALTY_CARD',
        holder_id: customerId,
        loyalty_card: { points: activated ? 100 : 0, balance: activated ? 100 : 0, pending_points: activated ? 0 : 100 },
        metadata: {},
        object: 'voucher',
      },
      voucher_pending_points_balance: { points: 100, total: activated ? 0 : 100, object: 'balance', related_object: { type: 'voucher', id: voucherId }, operation_type: activated ? 'AUTOMATIC' : 'MANUAL' },
      pending_points: { id: `lopp_test_${suffix}`, voucher_id: voucherId, customer_id: customerId, points: 100, activates_at: at, status: STATUS_AFTER[delivery.trigger] ?? 'PENDING' },
    }),
  };
}
