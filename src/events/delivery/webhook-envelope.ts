import { testEventOf } from './test-event.js';
import type { AttemptContext } from './delivery.types.js';

/**
 * The request body: Voucherify's 2024-01-01 envelope. Built from the rows alone, with keys in a fixed order,
 * so that every attempt of a delivery sends the same bytes (only the distribution's own edits change it).
 * The event's `data` goes in as the JSON text the events table holds, not parsed and written again: that
 * was a fifth of the worker's time per delivery (bench/README.md).
 */
export function envelopeOf(delivery: AttemptContext): string {
  const event = delivery.test ? testEventOf(delivery) : delivery.event;
  const head = JSON.stringify({
    id: delivery.id,
    project_id: delivery.projectId,
    created_at: delivery.createdAt.toISOString(),
    type: delivery.eventName ?? delivery.trigger,
  });
  const tail = JSON.stringify({
    source: { id: delivery.distributionId, object: 'distribution', target_url: delivery.targetUrl },
    event: event
      ? { id: event.id, type: event.type, created_at: event.createdAt.toISOString(), entity_id: event.entityId, group_id: event.groupId, event_source: event.eventSource }
      : null,
  });
  return `${head.slice(0, -1)},"data":${event?.data ?? '{}'},${tail.slice(1)}`;
}
