import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { ProjectContext } from '../auth/auth.service.js';
import { CurrentProject } from '../auth/current-project.decorator.js';
import { ApiErrorResponses, ApiOkBody } from '../common/openapi/api-responses.decorator.js';
import { EXAMPLE_IDS } from '../common/openapi/examples.js';
import { EventDto, EventListDto, ListEventsQueryDto } from './dto/event.dto.js';
import { EventsService } from './events.service.js';

@ApiTags('Events')
@Controller('v1/events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @ApiOperation({ operationId: 'listEvents', summary: 'List the project\'s events', description: 'Newest first, cursor paging; `type` filters. Each event was written in the transaction of the change it reports.' })
  @ApiOkBody(EventListDto)
  @ApiErrorResponses(401, 503)
  list(@CurrentProject() project: ProjectContext, @Query() query: ListEventsQueryDto): Promise<EventListDto> {
    return this.events.list(project, query);
  }

  @Get(':eventId')
  @ApiParam({ name: 'eventId', description: 'The event (`evcus_…`).', example: EXAMPLE_IDS.event })
  @ApiOperation({ operationId: 'getEvent', summary: 'Get an event' })
  @ApiOkBody(EventDto)
  @ApiErrorResponses(401, 404, 503)
  get(@CurrentProject() project: ProjectContext, @Param('eventId') eventId: string): Promise<EventDto> {
    return this.events.get(project, eventId);
  }
}
