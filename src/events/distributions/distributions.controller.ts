import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { ProjectContext } from '../../auth/auth.service.js';
import { CurrentProject } from '../../auth/current-project.decorator.js';
import { ApiErrorResponses, ApiOkBody } from '../../common/openapi/api-responses.decorator.js';
import { EXAMPLE_IDS } from '../../common/openapi/examples.js';
import { DistributionsService } from './distributions.service.js';
import { CreateDistributionDto, DistributionDto, DistributionListDto, ListDistributionsQueryDto, UpdateDistributionDto } from './dto/distribution.dto.js';

const DISTRIBUTION = ApiParam({ name: 'distributionId', description: 'The distribution (`distr_…`).', example: EXAMPLE_IDS.distribution });

@ApiTags('Webhooks')
@Controller('v1/distributions')
export class DistributionsController {
  constructor(private readonly distributions: DistributionsService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ operationId: 'createDistribution', summary: 'Create a webhook distribution', description: 'Events of the `trigger` type committed from now on are delivered to `target_url`, signed (docs/webhooks.md).' })
  @ApiOkBody(DistributionDto)
  @ApiErrorResponses(400, 401, 503)
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
  @ApiOperation({ operationId: 'updateDistribution', summary: 'Update a webhook distribution', description: 'Only the fields sent change. `status: ACTIVE` resumes a PAUSED or DISABLED distribution, and its PENDING deliveries are sent.' })
  @ApiOkBody(DistributionDto)
  @ApiErrorResponses(400, 401, 404, 503)
  update(@CurrentProject() project: ProjectContext, @Param('distributionId') id: string, @Body() body: UpdateDistributionDto): Promise<DistributionDto> {
    return this.distributions.update(project, id, body);
  }

  @Delete(':distributionId')
  @HttpCode(204)
  @DISTRIBUTION
  @ApiOperation({ operationId: 'deleteDistribution', summary: 'Delete a webhook distribution', description: 'Its deliveries and their attempts are deleted with it; nothing more is sent.' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrorResponses(401, 404, 503)
  delete(@CurrentProject() project: ProjectContext, @Param('distributionId') id: string): Promise<void> {
    return this.distributions.delete(project, id);
  }
}
