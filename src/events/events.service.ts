import { Injectable } from '@nestjs/common';
import type { ProjectContext } from '../auth/auth.service.js';
import { ApiError } from '../common/errors/api-error.js';
import { CursorService } from '../common/pagination/cursor.service.js';
import { type EventDto, type EventListDto, EVENTS_CURSOR_PREFIX, type ListEventsQueryDto, toEventDto } from './dto/event.dto.js';
import { EventRepository } from './event.repository.js';

/**
 * The project's event log, as the API reads it. Rows are written by the features, inside the transaction of
 * the change they report (the outbox), through recording/event-recording.ts.
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
