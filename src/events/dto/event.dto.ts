import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, Matches } from 'class-validator';
import { ListCursorDto } from '../../common/pagination/list-cursor.dto.js';
import { LimitQueryDto } from '../../common/pagination/limit-query.dto.js';
import { Optional } from '../../common/validation/decorators.js';
import type { EventRecord } from '../event.entity.js';
import { EVENT_TYPES } from '../event-catalogue.js';
import { EXAMPLE_IDS, patternExample } from '../../common/openapi/examples.js';

export const EVENTS_CURSOR_PREFIX = 'lcrsevt_';
export const EVENTS_CURSOR = new RegExp(`^${EVENTS_CURSOR_PREFIX}[a-f0-9]+$`);

export class EventApiKeyDto {
  @ApiPropertyOptional({
    example: 'Primary',
    description:
      'The name of the application key (`Primary` for a project\'s first key unless it was named otherwise: `cli.js create-project --key-name`, `rotate-key --name`). ' +
      'Present on every event recorded since keys have names; older events name the key by `app_id` only.',
  })
  name?: string;

  @ApiProperty({ example: EXAMPLE_IDS.app, description: 'The application key that made the request.' })
  app_id: string;
}

export class EventSourceDto {
  @ApiProperty({ enum: ['API', 'INTERNAL'], description: 'API: caused by a request; INTERNAL: by the service itself (the worker activating pending points on time).' })
  channel: 'API' | 'INTERNAL';

  @ApiPropertyOptional({ type: EventApiKeyDto, description: 'Present when channel is API.' })
  api_key?: EventApiKeyDto;
}

export class EventDto {
  @ApiProperty(patternExample(/^evcus_[a-f0-9]+$/, EXAMPLE_IDS.event))
  id: string;

  @ApiProperty({ enum: ['event'] })
  object: 'event';

  @ApiProperty({ enum: EVENT_TYPES })
  type: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ example: EXAMPLE_IDS.customer, description: 'The customer the event is about (`cust_…`).' })
  entity_id: string;

  @ApiProperty({ ...patternExample(/^v-[0-9a-f]+$/, EXAMPLE_IDS.request), description: 'The request (or worker run) that caused the event; events it caused share it.' })
  group_id: string;

  @ApiProperty({ type: EventSourceDto })
  event_source: EventSourceDto;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      '`activated`: customer, campaign, voucher (its loyalty_card after the activation), balance, order, transaction, pending_points. ' +
      '`added`, `canceled`, `updated`: customer, campaign, voucher, voucher_pending_points_balance, order, pending_points. ' +
      '`pending_points` is the entry after the change, as the pending-points lists show it (`PendingPointsDto`, without `activation_error`); ' +
      'the `activated` transaction\'s `details.pending_points` is the same entry.',
  })
  data: Record<string, unknown>;
}

export class EventListDto {
  @ApiProperty({ enum: ['list'] })
  object: 'list';

  @ApiProperty({ enum: ['data'] })
  data_ref: 'data';

  @ApiProperty({ type: [EventDto], description: 'Newest first.' })
  data: EventDto[];

  @ApiProperty({ description: 'Whether there are older events (then `cursor` is set).' })
  has_more: boolean;

  @ApiProperty({ type: ListCursorDto, nullable: true, description: 'null on the last page.' })
  cursor: ListCursorDto | null;
}

export class ListEventsQueryDto extends LimitQueryDto {
  @ApiPropertyOptional({ enum: EVENT_TYPES, description: 'Only events of this type.' })
  @Optional()
  @IsIn(EVENT_TYPES)
  type?: string;

  @ApiPropertyOptional({ pattern: EVENTS_CURSOR.source, description: '`cursor.next` of the previous page; valid with the same `type` until `expires_at`.' })
  @Optional()
  @IsString()
  @Matches(EVENTS_CURSOR, { message: `cursor must match ${EVENTS_CURSOR.source}` })
  cursor?: string;
}

export function toEventDto(event: EventRecord): EventDto {
  return {
    id: event.id,
    object: 'event',
    type: event.type,
    created_at: event.createdAt.toISOString(),
    entity_id: event.entityId,
    group_id: event.groupId,
    event_source: event.eventSource,
    data: event.data,
  };
}
