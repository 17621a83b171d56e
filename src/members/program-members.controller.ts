import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { ProjectContext } from '../auth/auth.service.js';
import { CurrentProject } from '../auth/current-project.decorator.js';
import { ApiErrorResponses, ApiOkBody, ENROLMENT_400_V2 } from '../common/openapi/api-responses.decorator.js';
import {
  CreateMemberDto,
  ListMembersQueryDto,
  MemberDto,
  MemberListDto,
  MemberParamsDto,
  MemberWithCardsDto,
  ProgramParamsDto,
  UpdateMemberDto,
} from './dto/member.dto.js';
import { MEMBER_FILTERS_SCHEMA, MEMBER_ORDER_SCHEMA } from './member-list.openapi.js';
import { MembersService } from './members.service.js';
import { ProgramMemberAnswers } from './program-member-answers.service.js';

@ApiTags('Programs')
@Controller('v2/loyalties/programs/:programId/members')
export class ProgramMembersController {
  constructor(
    private readonly members: MembersService,
    private readonly answers: ProgramMemberAnswers,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'listProgramMembers',
    summary: 'List program members (beta)',
    description:
      'Keyset pages of the program\'s members (deleted ones are never listed), without their cards. Pass `cursor.next` back as `cursor` ' +
      'with the same `filters` and `order` until `cursor` is null. A page deep in the list costs what the first one costs.',
  })
  @ApiQuery({ name: 'order', required: false, schema: MEMBER_ORDER_SCHEMA, style: 'form', explode: true, description: 'One or more of the values (repeat the parameter or separate with commas); `-` means descending; default `-created_at`. A field may appear once.' })
  @ApiQuery({ name: 'filters', required: false, schema: MEMBER_FILTERS_SCHEMA, style: 'deepObject', explode: true, description: '`filters[<field>][conditions][<condition>]=<value>`; lists as `$in[]=a&$in[]=b` or `$in=a,b`.' })
  @ApiOkBody(MemberListDto)
  @ApiErrorResponses(400, 401, 404, 503)
  list(@CurrentProject() project: ProjectContext, @Param() { programId }: ProgramParamsDto, @Query() query: ListMembersQueryDto): Promise<MemberListDto> {
    return this.members.list(project, programId, query);
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({ operationId: 'createProgramMember', summary: 'Enrol a customer', description: 'Makes the customer a member and gives it a loyalty card: a free pre-generated card, or a new one in an AUTO_UPDATE campaign. A customer given by a source id that does not exist yet is created.' })
  @ApiOkBody(MemberWithCardsDto)
  @ApiErrorResponses(ENROLMENT_400_V2, 401, 404, 409, 423, 503)
  create(@CurrentProject() project: ProjectContext, @Param() { programId }: ProgramParamsDto, @Body() dto: CreateMemberDto): Promise<MemberWithCardsDto> {
    return this.answers.create(project, programId, dto);
  }

  @Get(':memberId')
  @ApiOperation({ operationId: 'getProgramMember', summary: 'Get a member with its cards' })
  @ApiOkBody(MemberWithCardsDto)
  @ApiErrorResponses(400, 401, 404, 503)
  get(@CurrentProject() project: ProjectContext, @Param() { programId, memberId }: MemberParamsDto): Promise<MemberWithCardsDto> {
    return this.answers.get(project, programId, memberId);
  }

  @Put(':memberId')
  @ApiOperation({ operationId: 'updateProgramMember', summary: 'Update a member\'s metadata' })
  @ApiOkBody(MemberDto)
  @ApiErrorResponses(400, 401, 404, 503)
  update(@CurrentProject() project: ProjectContext, @Param() { programId, memberId }: MemberParamsDto, @Body() dto: UpdateMemberDto): Promise<MemberDto> {
    return this.members.update(project, programId, memberId, dto);
  }

  @Delete(':memberId')
  @ApiOperation({ operationId: 'deleteProgramMember', summary: 'Delete a member', description: 'Soft delete: the answer shows status DELETED; afterwards the member is not found, its card is kept and never handed out again, and the customer may enrol again.' })
  @ApiOkBody(MemberDto)
  @ApiErrorResponses(400, 401, 404, 503)
  delete(@CurrentProject() project: ProjectContext, @Param() { programId, memberId }: MemberParamsDto): Promise<MemberDto> {
    return this.members.setStatus(project, programId, memberId, 'DELETED');
  }

  @Post(':memberId/activate')
  @HttpCode(200)
  @ApiOperation({ operationId: 'activateProgramMember', summary: 'Activate a member', description: 'Idempotent.' })
  @ApiOkBody(MemberDto)
  @ApiErrorResponses(400, 401, 404, 503)
  activate(@CurrentProject() project: ProjectContext, @Param() { programId, memberId }: MemberParamsDto): Promise<MemberDto> {
    return this.members.setStatus(project, programId, memberId, 'ACTIVE');
  }

  @Post(':memberId/deactivate')
  @HttpCode(200)
  @ApiOperation({ operationId: 'deactivateProgramMember', summary: 'Deactivate a member', description: 'Idempotent. An INACTIVE member stays listed; its v1 card shows `active: false`.' })
  @ApiOkBody(MemberDto)
  @ApiErrorResponses(400, 401, 404, 503)
  deactivate(@CurrentProject() project: ProjectContext, @Param() { programId, memberId }: MemberParamsDto): Promise<MemberDto> {
    return this.members.setStatus(project, programId, memberId, 'INACTIVE');
  }
}
