import { Injectable } from '@nestjs/common';
import type { ProjectContext } from '../../auth/auth.service.js';
import { CampaignsService } from '../../campaigns/campaigns.service.js';
import { ApiError } from '../../common/errors/api-error.js';
import { MembersService } from '../../members/members.service.js';
import { type ListTransactionsQueryDto, type TransactionListDto, toTransactionDto } from './dto/transaction.dto.js';
import { LedgerRepository } from './ledger.repository.js';

/** The card's ledger as the v1 member routes show it. */
@Injectable()
export class LedgerService {
  constructor(
    private readonly ledger: LedgerRepository,
    private readonly members: MembersService,
    private readonly campaigns: CampaignsService,
  ) {}

  async list(project: ProjectContext, campaignIdOrName: string | null, code: string, query: ListTransactionsQueryDto): Promise<TransactionListDto> {
    const campaignId = campaignIdOrName !== null ? (await this.campaigns.find(project, campaignIdOrName)).campaign.id : undefined;
    const card = await this.members.findPublishedCard(project.id, code, campaignId);
    if (!card) throw ApiError.notFound('voucher', code);
    const limit = query.limit ?? 10;
    const rows = await this.ledger.listForCard(card.id, limit + 1, ((query.page ?? 1) - 1) * limit);
    return { object: 'list', data_ref: 'data', data: rows.slice(0, limit).map(toTransactionDto), has_more: rows.length > limit };
  }
}
