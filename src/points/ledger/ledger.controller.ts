import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { ProjectContext } from '../../auth/auth.service.js';
import { CurrentProject } from '../../auth/current-project.decorator.js';
import { ApiErrorResponses, ApiOkBody } from '../../common/openapi/api-responses.decorator.js';
import { CAMPAIGN_ID_PARAM, CARD_CODE_PARAM } from '../../common/openapi/params.js';
import { LOYALTY_CAMPAIGNS_TAG } from '../../common/openapi/tags.js';
import { ListTransactionsQueryDto, TransactionListDto } from './dto/transaction.dto.js';
import { LedgerService } from './ledger.service.js';

/** A loyalty card's ledger on the v1 loyalty routes (the member is its card code), with the campaigns in the OpenAPI document. */
@ApiTags(LOYALTY_CAMPAIGNS_TAG)
@Controller('v1/loyalties')
export class LedgerController {
  constructor(private readonly ledger: LedgerService) {}

  @Get('members/:memberId/transactions')
  @CARD_CODE_PARAM
  @ApiOperation({ operationId: 'listMemberTransactions', summary: 'List a card\'s transactions', description: 'Newest first, page/limit. The card\'s balance is the sum of its transactions\' points.' })
  @ApiOkBody(TransactionListDto)
  @ApiErrorResponses(400, 401, 404, 503)
  transactions(@CurrentProject() project: ProjectContext, @Param('memberId') code: string, @Query() query: ListTransactionsQueryDto): Promise<TransactionListDto> {
    return this.ledger.list(project, null, code, query);
  }

  @Get(':campaignId/members/:memberId/transactions')
  @CAMPAIGN_ID_PARAM
  @CARD_CODE_PARAM
  @ApiOperation({ operationId: 'listCampaignMemberTransactions', summary: 'List a card\'s transactions, in one campaign', description: 'Newest first, page/limit.' })
  @ApiOkBody(TransactionListDto)
  @ApiErrorResponses(400, 401, 404, 503)
  campaignTransactions(
    @CurrentProject() project: ProjectContext,
    @Param('campaignId') campaignId: string,
    @Param('memberId') code: string,
    @Query() query: ListTransactionsQueryDto,
  ): Promise<TransactionListDto> {
    return this.ledger.list(project, campaignId, code, query);
  }
}
