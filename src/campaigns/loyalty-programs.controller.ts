import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { ProjectContext } from '../auth/auth.service.js';
import { CurrentProject } from '../auth/current-project.decorator.js';
import { ApiErrorResponses, ApiOkBody } from '../common/openapi/api-responses.decorator.js';
import { EXAMPLE_IDS, patternExample } from '../common/openapi/examples.js';
import { ListLoyaltyProgramsQueryDto, LoyaltyProgramDto, LoyaltyProgramListDto, PROGRAM_ID } from './dto/loyalty-program.dto.js';
import { LoyaltyProgramsService } from './loyalty-programs.service.js';

@ApiTags('Programs')
@Controller('v2/loyalties/programs')
export class LoyaltyProgramsController {
  constructor(private readonly programs: LoyaltyProgramsService) {}

  @Get()
  @ApiOperation({ operationId: 'listPrograms', summary: 'List loyalty programs', description: 'Newest first, cursor paging; programs of deleted campaigns are not listed.' })
  @ApiOkBody(LoyaltyProgramListDto)
  @ApiErrorResponses(400, 401, 503)
  list(@CurrentProject() project: ProjectContext, @Query() query: ListLoyaltyProgramsQueryDto): Promise<LoyaltyProgramListDto> {
    return this.programs.list(project, query);
  }

  @Get(':programId')
  @ApiParam({ name: 'programId', schema: { type: 'string', ...patternExample(PROGRAM_ID, EXAMPLE_IDS.program) } })
  @ApiOperation({ operationId: 'getProgram', summary: 'Get a loyalty program' })
  @ApiOkBody(LoyaltyProgramDto)
  @ApiErrorResponses(401, 404, 503)
  get(@CurrentProject() project: ProjectContext, @Param('programId') programId: string): Promise<LoyaltyProgramDto> {
    return this.programs.get(project, programId);
  }
}
