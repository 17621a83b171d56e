import type { ProjectContext } from '../../auth/auth.service.js';
import { newRequestId } from '../../common/http/request-id.middleware.js';
import type { EventSource } from '../event.entity.js';

/**
 * How features record events: the one module of the events domain they import (docs/architecture.md,
 * "Layers"). An event is a row of `events` written by the feature's own statement, inside the transaction of
 * the change it reports (the outbox): this module gives that statement its INSERT and the event's cause. The
 * names of the types come from the event catalogue, re-exported here; the API's side (GET /v1/events) is
 * EventsService, which no feature needs.
 */
export { EVENTS, type EventType } from '../event-catalogue.js';

/** What caused a change, as its events record it. */
export interface EventCause {
  groupId: string;
  source: EventSource;
}

/** A request with an application key: the events it causes share its request id and name the key (Voucherify's order: name, app_id). */
export function requestCause(project: ProjectContext): EventCause {
  const key = project.apiKey;
  return { groupId: project.requestId ?? newRequestId(), source: key ? { channel: 'API', api_key: { name: key.name, app_id: key.appId } } : { channel: 'API' } };
}

/** The service itself (the worker): a fresh group per run. */
export function internalCause(): EventCause {
  return { groupId: newRequestId(), source: { channel: 'INTERNAL' } };
}

/**
 * The INSERT of event rows whose other columns a SELECT yields, in this order: `project_id, type, entity_id,
 * group_id, event_source, data`. Features that build a batch of events in SQL embed it in their own
 * statement (an activation batch builds its events in the database, next to the change they report),
 * while the events domain keeps its table and its id format here. Ids are `evcus_` + 22 hex that grow with
 * time (`loyalty_time_id`). The `data` a SELECT yields for a type is an instance of the type's schema (its
 * catalogue entry names it); the e2e runs check every event they record against it.
 *
 * Every event goes through here, so here its size is bounded: `maxBytes` names the statement's parameter
 * that holds EVENT_PAYLOAD_MAX_BYTES (the caller passes `config.events.payloadMaxBytes`), and a `data` longer
 * than that is cut by `loyalty_event_fit` (docs/webhooks.md, "Size of an event"). A parameter, not a session
 * setting: behind a pooler in transaction mode a statement may run on any server connection, whose settings
 * are not ours. The size is checked in the statement, so an event within the bound (all but a few) costs no
 * function call; `OFFSET 0` keeps PostgreSQL from pulling the SELECT up, which would build `data` twice.
 */
export function eventsInsertSql(select: string, maxBytes: `$${number}`): string {
  return `INSERT INTO events (id, project_id, type, entity_id, group_id, event_source, data)
    SELECT loyalty_time_id('evcus_'), s.project_id, s.type, s.entity_id, s.group_id, s.event_source,
           CASE WHEN octet_length(s.data::text) <= ${maxBytes}::int THEN s.data ELSE loyalty_event_fit(s.data, ${maxBytes}::int) END
    FROM (${select} OFFSET 0) s`;
}
