import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { ProjectContext } from '../auth/auth.service.js';
import { CurrentProject } from '../auth/current-project.decorator.js';
import { ApiErrorResponses, ApiOkBody } from '../common/openapi/api-responses.decorator.js';
import { EXAMPLE_IDS } from '../common/openapi/examples.js';
import { CustomerAnswersService } from './customer-answers.service.js';
import { CustomerDto, UpsertCustomerDto } from './dto/customer.dto.js';

@ApiTags('Customers')
@Controller('v1/customers')
export class CustomersController {
  constructor(private readonly customers: CustomerAnswersService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ operationId: 'createCustomer', summary: 'Create or update a customer', description: 'Upsert: an existing `source_id` (or `id`) updates that customer with the fields sent; otherwise a customer is created. 200 either way.' })
  @ApiOkBody(CustomerDto)
  @ApiErrorResponses(400, 401, 404, 503)
  upsert(@CurrentProject() project: ProjectContext, @Body() dto: UpsertCustomerDto): Promise<CustomerDto> {
    return this.customers.upsert(project, dto);
  }

  @Get(':customerId')
  @ApiParam({ name: 'customerId', description: 'The customer\'s id (`cust_…`) or source_id.', example: EXAMPLE_IDS.customer })
  @ApiOperation({ operationId: 'getCustomer', summary: 'Get a customer' })
  @ApiOkBody(CustomerDto)
  @ApiErrorResponses(401, 404, 503)
  get(@CurrentProject() project: ProjectContext, @Param('customerId') customerId: string): Promise<CustomerDto> {
    return this.customers.get(project, customerId);
  }
}
