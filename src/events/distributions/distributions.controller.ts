import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { ProjectContext } from '../../auth/auth.service.js';
import { CurrentProject } from '../../auth/current-project.decorator.js';
import { ApiErrorResponses, ApiOkBody, type OwnErrorResponse } from '../../common/openapi/api-responses.decorator.js';
import { EXAMPLE_IDS } from '../../common/openapi/examples.js';
import { DistributionsService } from './distributions.service.js';
import { CreateDistributionDto, DistributionDto, DistributionListDto, ListDistributionsQueryDto, UpdateDistributionDto } from './dto/distribution.dto.js';

/** POST /v1/distributions: the project already has WEBHOOK_MAX_DISTRIBUTIONS_PER_PROJECT. */
const TOO_MANY_DISTRIBUTIONS: OwnErrorResponse = {
  status: 409,
  description: 'The project already has as many distributions as it may (`limit_exceeded`; WEBHOOK_MAX_DISTRIBUTIONS_PER_PROJECT, 100 by default). Deleted distributions no longer count.',
  example: {
    code: 409,
    key: 'limit_exceeded',
    message: 'Limit exceeded',
    details: 'A project may have at most 100 distributions; delete one to make room (deleted distributions no longer count)',
    request_id: EXAMPLE_IDS.request,
    resource_type: 'distributions',
  },
};

const DISTRIBUTION = ApiParam({ name: 'distributionId', description: 'The distribution (`distr_…`).', example: EXAMPLE_IDS.distribution });

@ApiTags('Webhooks')
@Controller('v1/distributions')
export class DistributionsController {
  constructor(private readonly distributions: DistributionsService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createDistribution',
    summary: 'Create a webhook distribution',
    description: 'Events of the `trigger` type committed from now on are delivered to `target_url`, signed (docs/webhooks.md). A project has at most WEBHOOK_MAX_DISTRIBUTIONS_PER_PROJECT distributions (100 by default): one more is 409 `limit_exceeded`.',
  })
  @ApiOkBody(DistributionDto)
  @ApiErrorResponses(400, 401, TOO_MANY_DISTRIBUTIONS, 503)
  create(@CurrentProject() project: ProjectContext, @Body() body: CreateDistributionDto): Promise<DistributionDto> {
    return this.distributions.create(project, body);
  }

  @Get()
  @ApiOperation({ operationId: 'listDistributions', summary: 'List webhook distributions', description: 'Newest first, cursor paging.' })
  @ApiOkBody(DistributionListDto)
  @ApiErrorResponses(400, 401, 503)
  list(@CurrentProject() project: ProjectContext, @Query() query: ListDistributionsQueryDto): Promise<DistributionListDto> {
    return this.distributions.list(project, query);
  }

  @Get(':distributionId')
  @DISTRIBUTION
  @ApiOperation({ operationId: 'getDistribution', summary: 'Get a webhook distribution' })
  @ApiOkBody(DistributionDto)
  @ApiErrorResponses(401, 404, 503)
  get(@CurrentProject() project: ProjectContext, @Param('distributionId') id: string): Promise<DistributionDto> {
    return this.distributions.get(project, id);
  }

  @Put(':distributionId')
  @DISTRIBUTION
  @ApiOperation({ operationId: 'updateDistribution', summary: 'Update a webhook distribution', description: 'Only the fields sent change. `status: ACTIVE` resumes a PAUSED or DISABLED distribution: the worker makes its PENDING deliveries due in the background, and they are sent.' })
  @ApiOkBody(DistributionDto)
  @ApiErrorResponses(400, 401, 404, 503)
  update(@CurrentProject() project: ProjectContext, @Param('distributionId') id: string, @Body() body: UpdateDistributionDto): Promise<DistributionDto> {
    return this.distributions.update(project, id, body);
  }

  @Delete(':distributionId')
  @HttpCode(204)
  @DISTRIBUTION
  @ApiOperation({ operationId: 'deleteDistribution', summary: 'Delete a webhook distribution', description: 'Gone from every answer at once, and nothing more is sent to it; its deliveries and their attempts are deleted by the worker in the background, in batches.' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrorResponses(401, 404, 503)
  delete(@CurrentProject() project: ProjectContext, @Param('distributionId') id: string): Promise<void> {
    return this.distributions.delete(project, id);
  }
}
