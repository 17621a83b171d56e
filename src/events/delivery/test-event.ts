import { EVENT_CATALOGUE, type EventEntry, EVENTS, isEventType, sampleKey } from '../event-catalogue.js';
import type { AttemptContext } from './delivery.types.js';

/** A trigger the catalogue no longer knows (a distribution stored before its type went) gets an added event's entry. */
function entryOf(trigger: string): EventEntry {
  return EVENT_CATALOGUE[isEventType(trigger) ? trigger : EVENTS.CUSTOMER.VOUCHER.LOYALTY_CARD.PENDING_POINTS.ADDED];
}

/**
 * The sample event of a test delivery (`POST /v1/distributions/{id}/test`): the shape of a real event of
 * the distribution's trigger (its `sample` in the event catalogue, a valid instance of the type's schema),
 * with `data.test` true and made-up ids marked `test`, so that a receiver can try its parsing and its signature check, and tell a test from a
 * real change. Its `event_source` is a real event's of the type (the catalogue's `channel`): for API types a
 * made-up key (`Test key`, `app_test_…`), never the key that asked for the test, so that the event is built
 * from the delivery alone and every attempt sends the same bytes.
 */
export function testEventOf(delivery: Pick<AttemptContext, 'id' | 'createdAt' | 'trigger'>): NonNullable<AttemptContext['event']> {
  const at = delivery.createdAt.toISOString();
  const suffix = delivery.id.slice('whs_'.length);
  const customerId = `cust_test_${suffix}`;
  const voucherId = `v_test_${suffix}`;
  const entry = entryOf(delivery.trigger);
  return {
    id: `evtest_${suffix}`,
    type: delivery.trigger,
    createdAt: delivery.createdAt,
    entityId: customerId,
    groupId: `v-test-${suffix}`,
    eventSource: entry.channel === 'API' ? { channel: 'API', api_key: sampleKey(suffix) } : { channel: 'INTERNAL' },
    data: JSON.stringify({ test: true, ...entry.sample({ suffix, customerId, voucherId, at }) }),
  };
}
