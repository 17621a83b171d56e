import { Injectable } from '@nestjs/common';
import type { ProjectContext } from '../auth/auth.service.js';
import { ApiError } from '../common/errors/api-error.js';
import { newRequestId } from '../common/http/request-id.middleware.js';
import { CursorService } from '../common/pagination/cursor.service.js';
import { type EventDto, type EventListDto, EVENTS_CURSOR_PREFIX, type ListEventsQueryDto, toEventDto } from './dto/event.dto.js';
import type { EventSource } from './event.entity.js';
import { EventRepository } from './event.repository.js';

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
 * The project's event log. Rows are written by the features, inside the transaction of the change they
 * report (the outbox), through `eventsInsertSql` of the repository.
 */
@Injectable()
export class EventsService {
  constructor(
    private readonly events: EventRepository,
    private readonly cursors: CursorService,
  ) {}

  async get(project: ProjectContext, eventId: string): Promise<EventDto> {
    const event = await this.events.findById(project.id, eventId);
    if (!event) throw ApiError.notFound('event', eventId);
    return toEventDto(event);
  }

  async list(project: ProjectContext, query: ListEventsQueryDto): Promise<EventListDto> {
    const scope = `${project.id}|events|type=${query.type ?? ''}`;
    const { page, cursor } = await this.cursors.seqPage(EVENTS_CURSOR_PREFIX, scope, query.cursor, query.limit ?? 10, (before, limit) => this.events.list(project.id, query.type, before, limit));
    return { object: 'list', data_ref: 'data', data: page.map(toEventDto), has_more: cursor !== null, cursor };
  }
}
