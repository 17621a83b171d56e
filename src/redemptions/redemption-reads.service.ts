import { Injectable } from '@nestjs/common';
import type { ProjectContext } from '../auth/auth.service.js';
import { CampaignsService } from '../campaigns/campaigns.service.js';
import { ApiError } from '../common/errors/api-error.js';
import { CustomersService } from '../customers/customers.service.js';
import { MembersService } from '../members/members.service.js';
import { OrderRepository } from '../points/orders/order.repository.js';
import type { ListRedemptionsQueryDto, LoyaltyRedemptionDto, RedemptionListDto, RedemptionRollbackDto, VoucherRedemptionsDto } from './dto/redemption.dto.js';
import { toEntryDto } from './dto/redemption-answers.js';
import type { Redemption } from './redemption.entity.js';
import { type RedemptionFilter, RedemptionRepository } from './redemption.repository.js';

/** The most entries GET /v1/vouchers/{code}/redemption lists (Voucherify's answer has no paging). */
const VOUCHER_ENTRIES = 100;

/** Reading redemptions and rollbacks: one by id, the project's list, a card's. */
@Injectable()
export class RedemptionReadsService {
  constructor(
    private readonly redemptions: RedemptionRepository,
    private readonly campaigns: CampaignsService,
    private readonly customers: CustomersService,
    private readonly orders: OrderRepository,
    private readonly members: MembersService,
  ) {}

  /** GET /v1/redemptions/{redemptionId}: a redemption (`r_…`, with its rollback) or a rollback (`rr_…`). */
  async get(project: ProjectContext, id: string): Promise<LoyaltyRedemptionDto | RedemptionRollbackDto> {
    const row = await this.redemptions.find(project.id, id);
    if (!row) throw ApiError.notFound('redemption', id);
    return toEntryDto(row, await this.redemptions.rollbacksOf(project.id, [row.id]));
  }

  /** GET /v1/redemptions: newest first, filtered by campaign, customer, order and creation time. */
  async list(project: ProjectContext, query: ListRedemptionsQueryDto): Promise<RedemptionListDto> {
    const limit = query.limit ?? 10;
    const filter: RedemptionFilter = { createdBefore: query.created_at?.before, createdAfter: query.created_at?.after };
    // A filter naming nothing of the project matches nothing (as an unknown id would).
    const none = '-';
    if (query.campaign !== undefined) filter.campaignId = (await this.campaigns.find(project, query.campaign).catch(() => null))?.campaign.id ?? none;
    if (query.customer !== undefined) filter.customerId = (await this.customers.findIdOrSourceId(project, query.customer)) ?? none;
    if (query.order !== undefined) filter.orderId = (await this.orders.findByIdOrSourceId(project.id, query.order))?.id ?? none;
    if (query.result === 'FAILURE') return { object: 'list', data_ref: 'redemptions', redemptions: [], total: 0 };
    const { rows, total } = await this.redemptions.list(project.id, filter, { limit, offset: ((query.page ?? 1) - 1) * limit });
    return { object: 'list', data_ref: 'redemptions', redemptions: await this.entries(project, rows), total };
  }

  /** GET /v1/vouchers/{code}/redemption: the card's redemptions and rollbacks, newest first. */
  async forVoucher(project: ProjectContext, code: string): Promise<VoucherRedemptionsDto> {
    const card = await this.members.getV1(project, null, code);
    const { rows, total } = await this.redemptions.list(project.id, { voucherId: card.id }, { limit: VOUCHER_ENTRIES, offset: 0 });
    return {
      quantity: null,
      redeemed_quantity: card.redemption.redeemed_quantity,
      object: 'list',
      url: `/v1/vouchers/${encodeURIComponent(code)}/redemption?page=1&limit=${VOUCHER_ENTRIES}`,
      data_ref: 'redemption_entries',
      total,
      redemption_entries: await this.entries(project, rows),
    };
  }

  private async entries(project: ProjectContext, rows: Redemption[]): Promise<(LoyaltyRedemptionDto | RedemptionRollbackDto)[]> {
    const rollbacks = await this.redemptions.rollbacksOf(project.id, rows.filter((row) => row.object === 'redemption' && row.status === 'ROLLED_BACK').map((row) => row.id));
    return rows.map((row) => toEntryDto(row, rollbacks));
  }
}
