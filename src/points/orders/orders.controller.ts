import { Body, Controller, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { ProjectContext } from '../../auth/auth.service.js';
import { CurrentProject } from '../../auth/current-project.decorator.js';
import { ApiErrorResponses, ApiOkBody } from '../../common/openapi/api-responses.decorator.js';
import { EXAMPLE_IDS } from '../../common/openapi/examples.js';
import { CreateOrderDto, OrderDto, OrderFieldsDto } from './dto/order.dto.js';
import { OrdersService } from './orders.service.js';

const ORDER = ApiParam({ name: 'orderId', description: 'The order\'s id (`ord_…`) or its source_id.', example: EXAMPLE_IDS.order });

@ApiTags('Orders')
@Controller('v1/orders')
export class OrdersController {
  constructor(private readonly orders: OrdersService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createOrder',
    summary: 'Create or update an order',
    description:
      'An order with the `id` or `source_id` sent is updated (only the fields sent change), else one is made. When the order is (or becomes) PAID, ' +
      'every active earning rule of every active loyalty campaign where its customer is an ACTIVE member (or joins now, with `auto_join`) earns once, ' +
      'however often the order is sent: straight to the card, or as a pending entry when the rule has `pending_points`. CANCELED cancels the order\'s pending entries.',
  })
  @ApiOkBody(OrderDto)
  @ApiErrorResponses(400, 401, 404, 503)
  create(@CurrentProject() project: ProjectContext, @Body() dto: CreateOrderDto): Promise<OrderDto> {
    return this.orders.create(project, dto);
  }

  @Put(':orderId')
  @ORDER
  @ApiOperation({ operationId: 'updateOrder', summary: 'Update an order', description: 'Only the fields sent change; earning and cancellation as for POST /v1/orders.' })
  @ApiOkBody(OrderDto)
  @ApiErrorResponses(400, 401, 404, 503)
  update(@CurrentProject() project: ProjectContext, @Param('orderId') orderId: string, @Body() dto: OrderFieldsDto): Promise<OrderDto> {
    return this.orders.update(project, orderId, dto);
  }

  @Get(':orderId')
  @ORDER
  @ApiOperation({ operationId: 'getOrder', summary: 'Get an order' })
  @ApiOkBody(OrderDto)
  @ApiErrorResponses(401, 404, 503)
  get(@CurrentProject() project: ProjectContext, @Param('orderId') orderId: string): Promise<OrderDto> {
    return this.orders.get(project, orderId);
  }
}
