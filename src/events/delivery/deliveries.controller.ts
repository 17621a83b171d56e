import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { ProjectContext } from '../../auth/auth.service.js';
import { CurrentProject } from '../../auth/current-project.decorator.js';
import { ApiErrorResponses, ApiOkBody } from '../../common/openapi/api-responses.decorator.js';
import { EXAMPLE_IDS } from '../../common/openapi/examples.js';
import { DeliveriesService } from './deliveries.service.js';
import { DeliveryDetailDto, DeliveryDto, DeliveryListDto, DistributionStatsDto, ListDeliveriesQueryDto, RecoverDeliveriesDto, RecoveryDto } from './dto/delivery.dto.js';

const DISTRIBUTION = ApiParam({ name: 'distributionId', description: 'The distribution (`distr_…`).', example: EXAMPLE_IDS.distribution });
const DELIVERY = ApiParam({ name: 'deliveryId', description: 'The delivery (`whs_…`).', example: EXAMPLE_IDS.delivery });

@ApiTags('Webhooks')
@Controller('v1/distributions/:distributionId')
export class DeliveriesController {
  constructor(private readonly deliveries: DeliveriesService) {}

  @Get('deliveries')
  @DISTRIBUTION
  @ApiOperation({ operationId: 'listDeliveries', summary: 'List a distribution\'s deliveries', description: 'Newest first, cursor paging; `status` filters. Each with its attempts.' })
  @ApiOkBody(DeliveryListDto)
  @ApiErrorResponses(400, 401, 404, 503)
  list(@CurrentProject() project: ProjectContext, @Param('distributionId') distributionId: string, @Query() query: ListDeliveriesQueryDto): Promise<DeliveryListDto> {
    return this.deliveries.list(project, distributionId, query);
  }

  @Get('deliveries/:deliveryId')
  @DISTRIBUTION
  @DELIVERY
  @ApiOperation({ operationId: 'getDelivery', summary: 'Get a delivery, its attempts and the body it sends' })
  @ApiOkBody(DeliveryDetailDto)
  @ApiErrorResponses(401, 404, 503)
  get(@CurrentProject() project: ProjectContext, @Param('distributionId') distributionId: string, @Param('deliveryId') id: string): Promise<DeliveryDetailDto> {
    return this.deliveries.get(project, distributionId, id);
  }

  @Post('deliveries/:deliveryId/redeliver')
  @HttpCode(200)
  @DISTRIBUTION
  @DELIVERY
  @ApiOperation({ operationId: 'redeliverDelivery', summary: 'Send a delivery again now', description: 'One more attempt now, with the same `webhook-id`. A settled delivery gets one attempt; one still retrying keeps its schedule.' })
  @ApiOkBody(DeliveryDto)
  @ApiErrorResponses(401, 404, 503)
  redeliver(@CurrentProject() project: ProjectContext, @Param('distributionId') distributionId: string, @Param('deliveryId') id: string): Promise<DeliveryDto> {
    return this.deliveries.redeliver(project, distributionId, id);
  }

  @Post('recover')
  @HttpCode(200)
  @DISTRIBUTION
  @ApiOperation({ operationId: 'recoverDeliveries', summary: 'Send every FAILED delivery since a time again', description: 'As Svix\'s recover: each FAILED delivery created since `since` gets one attempt, with its own `webhook-id`. The request records the recover and answers at once; the worker makes the deliveries due in the background, in batches, and they are sent.' })
  @ApiOkBody(RecoveryDto)
  @ApiErrorResponses(400, 401, 404, 503)
  recover(@CurrentProject() project: ProjectContext, @Param('distributionId') distributionId: string, @Body() body: RecoverDeliveriesDto): Promise<RecoveryDto> {
    return this.deliveries.recover(project, distributionId, body);
  }

  @Post('test')
  @HttpCode(200)
  @DISTRIBUTION
  @ApiOperation({
    operationId: 'testDistribution',
    summary: 'Send a test delivery',
    description:
      'One signed delivery of a sample event of the distribution\'s trigger (`data.test` is true; the event is in no event log), sent now and recorded like any delivery (`test: true`); while the distribution is not ACTIVE it waits (`next_attempt_at` null) and is sent when it is. One attempt: if it fails, the delivery is FAILED and the distribution keeps its status.',
  })
  @ApiOkBody(DeliveryDto)
  @ApiErrorResponses(401, 404, 503)
  test(@CurrentProject() project: ProjectContext, @Param('distributionId') distributionId: string): Promise<DeliveryDto> {
    return this.deliveries.test(project, distributionId);
  }

  @Get('stats')
  @DISTRIBUTION
  @ApiOperation({ operationId: 'getDistributionStats', summary: 'A distribution\'s latest delivery and its last 24 hours', description: 'What the dashboard\'s list of distributions shows: the newest delivery with its last attempt, and the deliveries created in the last 24 hours by status.' })
  @ApiOkBody(DistributionStatsDto)
  @ApiErrorResponses(401, 404, 503)
  stats(@CurrentProject() project: ProjectContext, @Param('distributionId') distributionId: string): Promise<DistributionStatsDto> {
    return this.deliveries.stats(project, distributionId);
  }
}
