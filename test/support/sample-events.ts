import { EVENT_CATALOGUE, type EventType } from '../../src/events/event-catalogue.js';

/**
 * A valid `data` of `type` (its catalogue sample), as JSON text, for the events a test inserts by itself:
 * the run's global teardown checks every event of the run's database against its type's schema
 * (test/setup/recorded-events.mjs), so a made-up payload would fail the run.
 */
export function sampleEventData(type: EventType): string {
  return JSON.stringify(EVENT_CATALOGUE[type].sample({ suffix: 'sample', customerId: 'cust_sample', voucherId: 'v_sample', at: new Date().toISOString() }));
}
