import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AsyncActionIdDto } from '../async-actions/dto/async-action.dto.js';
import type { ProjectContext } from '../auth/auth.service.js';
import { CurrentProject } from '../auth/current-project.decorator.js';
import { ApiErrorResponses, ApiOkBody } from '../common/openapi/api-responses.decorator.js';
import { CAMPAIGN_ID_PARAM } from '../common/openapi/params.js';
import { LOYALTY_CAMPAIGNS_TAG } from '../common/openapi/tags.js';
import { CampaignsService } from './campaigns.service.js';
import { CreateLoyaltyCampaignDto } from './dto/create-loyalty-campaign.dto.js';
import { DeleteLoyaltyCampaignQueryDto } from './dto/delete-loyalty-campaign.dto.js';
import { ListLoyaltyCampaignsQueryDto, LoyaltyCampaignListDto } from './dto/list-loyalty-campaigns.dto.js';
import { LoyaltyCampaignDto } from './dto/loyalty-campaign.dto.js';
import { UpdateLoyaltyCampaignDto } from './dto/update-loyalty-campaign.dto.js';

@ApiTags(LOYALTY_CAMPAIGNS_TAG)
@Controller('v1/loyalties')
export class LoyaltiesController {
  constructor(private readonly campaigns: CampaignsService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createLoyaltyCampaign',
    summary: 'Create a loyalty campaign',
    description:
      'Creates the campaign and its program. With `vouchers_count` > 0 the loyalty cards are generated in the background: ' +
      '`creation_status` and `vouchers_generation_status` are IN_PROGRESS, then DONE (or FAILED), and `vouchers_count` counts the cards made.',
  })
  @ApiOkBody(LoyaltyCampaignDto)
  @ApiErrorResponses(400, 401, 404, 409, 503)
  create(@CurrentProject() project: ProjectContext, @Body() dto: CreateLoyaltyCampaignDto): Promise<LoyaltyCampaignDto> {
    return this.campaigns.create(project, dto);
  }

  @Get()
  @ApiOperation({ operationId: 'listLoyaltyCampaigns', summary: 'List loyalty campaigns', description: 'Newest first by default; `page`/`limit` paging with the total count.' })
  @ApiOkBody(LoyaltyCampaignListDto)
  @ApiErrorResponses(400, 401, 503)
  list(@CurrentProject() project: ProjectContext, @Query() query: ListLoyaltyCampaignsQueryDto): Promise<LoyaltyCampaignListDto> {
    return this.campaigns.list(project, query);
  }

  @Get(':campaignId')
  @CAMPAIGN_ID_PARAM
  @ApiOperation({ operationId: 'getLoyaltyCampaign', summary: 'Get a loyalty campaign' })
  @ApiOkBody(LoyaltyCampaignDto)
  @ApiErrorResponses(401, 404, 503)
  get(@CurrentProject() project: ProjectContext, @Param('campaignId') campaignId: string): Promise<LoyaltyCampaignDto> {
    return this.campaigns.get(project, campaignId);
  }

  @Put(':campaignId')
  @CAMPAIGN_ID_PARAM
  @ApiOperation({
    operationId: 'updateLoyaltyCampaign',
    summary: 'Update a loyalty campaign',
    description:
      'Partial update: fields not sent are unchanged, fields outside the schema are ignored. `metadata` is merged, then ' +
      '`unset_metadata_fields` are removed. `join_once` stays true. A protected campaign answers 400 `resource_protected` unless the body sets `protected: false`.',
  })
  @ApiOkBody(LoyaltyCampaignDto)
  @ApiErrorResponses(400, 401, 404, 503)
  update(@CurrentProject() project: ProjectContext, @Param('campaignId') campaignId: string, @Body() dto: UpdateLoyaltyCampaignDto): Promise<LoyaltyCampaignDto> {
    return this.campaigns.update(project, campaignId, dto);
  }

  @Delete(':campaignId')
  @HttpCode(200)
  @CAMPAIGN_ID_PARAM
  @ApiOperation({
    operationId: 'deleteLoyaltyCampaign',
    summary: 'Delete a loyalty campaign',
    description:
      'Moves the campaign and its loyalty cards to the bin, or deletes them for good with `force=true`, and answers the id of the async action that records it ' +
      '(CAMPAIGN.VOUCHERS_DELETE: `GET /v1/async-actions/{asyncActionId}`). A move to the bin is done before the answer: the action is already DONE. ' +
      'With `force=true` the campaign is gone from every answer at once and its action IN_PROGRESS; the worker deletes its cards, their history and ' +
      'its members in batches, and the action turns DONE (`progress` in between). ' +
      'A protected campaign answers 400 `resource_protected` and no action is made.',
  })
  @ApiOkBody(AsyncActionIdDto)
  @ApiErrorResponses(400, 401, 404, 503)
  delete(@CurrentProject() project: ProjectContext, @Param('campaignId') campaignId: string, @Query() query: DeleteLoyaltyCampaignQueryDto): Promise<AsyncActionIdDto> {
    return this.campaigns.delete(project, campaignId, query.force === true);
  }
}
