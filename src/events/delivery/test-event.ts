import { EVENT_CATALOGUE, EVENTS, isEventType } from '../event-catalogue.js';
import type { AttemptContext } from './delivery.types.js';

/** A trigger the catalogue no longer knows (a distribution stored before its type went) gets an added event's sample. */
function sampleOf(trigger: string) {
  return EVENT_CATALOGUE[isEventType(trigger) ? trigger : EVENTS.CUSTOMER.VOUCHER.LOYALTY_CARD.PENDING_POINTS.ADDED].sample;
}

/**
 * The sample event of a test delivery (`POST /v1/distributions/{id}/test`): the shape of a real event of
 * the distribution's trigger (its `sample` in the event catalogue), with `data.test` true and made-up ids
 * marked `test`, so that a receiver can try its parsing and its signature check, and tell a test from a
 * real change. Built from the delivery alone, so that every attempt sends the same bytes.
 */
export function testEventOf(delivery: Pick<AttemptContext, 'id' | 'createdAt' | 'trigger'>): NonNullable<AttemptContext['event']> {
  const at = delivery.createdAt.toISOString();
  const suffix = delivery.id.slice('whs_'.length);
  const customerId = `cust_test_${suffix}`;
  const voucherId = `v_test_${suffix}`;
  return {
    id: `evtest_${suffix}`,
    type: delivery.trigger,
    createdAt: delivery.createdAt,
    entityId: customerId,
    groupId: `v-test-${suffix}`,
    eventSource: { channel: 'INTERNAL' },
    data: JSON.stringify({ test: true, ...sampleOf(delivery.trigger)({ suffix, customerId, voucherId, at }) }),
  };
}
