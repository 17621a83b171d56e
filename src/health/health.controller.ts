import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/public.decorator.js';
import { ApiErrorResponses } from '../common/openapi/api-responses.decorator.js';
import { LivenessDto, ReadinessDto } from './dto/health.dto.js';
import { HealthService } from './health.service.js';

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
  @ApiOperation({ operationId: 'getReadiness', summary: 'Readiness: PostgreSQL answers and the process is not shutting down (Redis reported)' })
  @ApiOkResponse({ type: ReadinessDto })
  @ApiErrorResponses(503)
  ready(): Promise<ReadinessDto> {
    return this.health.readiness();
  }
}

