import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/public.decorator.js';
import { ApiErrorResponses } from '../common/openapi/api-responses.decorator.js';
import { HealthService, type ReadinessDto } from './health.service.js';

class LivenessDto {
  @ApiProperty({ enum: ['ok'] })
  status: 'ok';
}

class ReadinessBodyDto {
  @ApiProperty({ enum: ['ok'] })
  status: 'ok';

  @ApiProperty({ example: { postgres: 'up', redis: 'up' } })
  checks: Record<string, 'up'>;
}

@ApiTags('Health')
@Public()
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get()
  @ApiOperation({ operationId: 'getLiveness', summary: 'Liveness: the process answers HTTP' })
  @ApiOkResponse({ type: LivenessDto })
  @ApiErrorResponses()
  live(): LivenessDto {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({ operationId: 'getReadiness', summary: 'Readiness: PostgreSQL and Redis answer' })
  @ApiOkResponse({ type: ReadinessBodyDto })
  @ApiErrorResponses(503)
  ready(): Promise<ReadinessDto> {
    return this.health.readiness();
  }
}

