import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { ProjectContext } from '../auth/auth.service.js';
import { CurrentProject } from '../auth/current-project.decorator.js';
import { ApiErrorResponses, ApiOkBody } from '../common/openapi/api-responses.decorator.js';
import { EXAMPLE_IDS } from '../common/openapi/examples.js';
import { AsyncActionsService } from './async-actions.service.js';
import { AsyncActionDto, AsyncActionListDto, ListAsyncActionsQueryDto } from './dto/async-action.dto.js';

@ApiTags('Async actions')
@Controller('v1/async-actions')
export class AsyncActionsController {
  constructor(private readonly actions: AsyncActionsService) {}

  @Get()
  @ApiOperation({
    operationId: 'listAsyncActions',
    summary: 'List async actions',
    description: 'The project\'s actions, newest first, without their results; `end_date` pages. Actions are kept ASYNC_ACTION_TTL_MS (30 days by default).',
  })
  @ApiOkBody(AsyncActionListDto)
  @ApiErrorResponses(400, 401, 503)
  list(@CurrentProject() project: ProjectContext, @Query() query: ListAsyncActionsQueryDto): Promise<AsyncActionListDto> {
    return this.actions.list(project, query);
  }

  @Get(':asyncActionId')
  @ApiParam({ name: 'asyncActionId', description: 'The action (`aa_…`), as `DELETE /v1/loyalties/{campaignId}` answered it.', example: EXAMPLE_IDS.asyncAction })
  @ApiOperation({ operationId: 'getAsyncAction', summary: 'Get an async action', description: 'Its status and result. An action of another project, or older than ASYNC_ACTION_TTL_MS, is 404.' })
  @ApiOkBody(AsyncActionDto)
  @ApiErrorResponses(401, 404, 503)
  get(@CurrentProject() project: ProjectContext, @Param('asyncActionId') asyncActionId: string): Promise<AsyncActionDto> {
    return this.actions.get(project, asyncActionId);
  }
}
