import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { ProjectContext } from '../auth/auth.service.js';
import { CurrentProject } from '../auth/current-project.decorator.js';
import { ApiErrorResponses, ApiOkBody } from '../common/openapi/api-responses.decorator.js';
import { EXAMPLE_IDS } from '../common/openapi/examples.js';
import { CreateDiagnosticPingDto } from './dto/create-diagnostic-ping.dto.js';
import { DiagnosticPingDto } from './dto/diagnostic-ping.dto.js';
import { DiagnosticsService } from './diagnostics.service.js';

@ApiTags('Diagnostics')
@Controller('v1/diagnostics')
export class DiagnosticsController {
  constructor(private readonly diagnostics: DiagnosticsService) {}

  @Post('pings')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createDiagnosticPing',
    summary: 'Queue a diagnostic ping',
    description: 'Writes a ping row and enqueues a job for it; a running worker marks it DONE. Proves the API → queue → worker path.',
  })
  @ApiOkBody(DiagnosticPingDto)
  @ApiErrorResponses(400, 401, 503)
  createPing(@CurrentProject() project: ProjectContext, @Body() dto: CreateDiagnosticPingDto): Promise<DiagnosticPingDto> {
    return this.diagnostics.createPing(project, dto);
  }

  @Get('pings/:pingId')
  @ApiParam({ name: 'pingId', description: 'The ping (`ping_…`).', example: EXAMPLE_IDS.ping })
  @ApiOperation({ operationId: 'getDiagnosticPing', summary: 'Get a diagnostic ping' })
  @ApiOkBody(DiagnosticPingDto)
  @ApiErrorResponses(401, 404, 503)
  getPing(@CurrentProject() project: ProjectContext, @Param('pingId') pingId: string): Promise<DiagnosticPingDto> {
    return this.diagnostics.getPing(project, pingId);
  }
}
