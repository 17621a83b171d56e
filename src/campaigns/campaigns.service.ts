import { Injectable, Logger } from '@nestjs/common';
import { AsyncActionsService } from '../async-actions/async-actions.service.js';
import type { AsyncActionIdDto } from '../async-actions/dto/async-action.dto.js';
import type { ProjectContext } from '../auth/auth.service.js';
import { ApiError } from '../common/errors/api-error.js';
import { base62Id, hexId } from '../common/ids.js';
import { isUniqueViolation } from '../database/errors.js';
import { TransactionRunner, type Tx } from '../database/transaction-runner.js';
import { JobQueueService } from '../queue/job-queue.service.js';
import { JobName } from '../queue/queue.definitions.js';
import type { AccessAssignment, Campaign, VoucherModel } from './campaign.entity.js';
import { CAMPAIGN_NAME_CONSTRAINT, CampaignRepository, type CampaignPatch, type CategoryRef, type StoredCampaign } from './campaign.repository.js';
import { CategoryRepository } from './category.repository.js';
import { checkCodeSpace, resolveCodeConfig } from './code-config.js';
import type { AccessSettingsDto, AreaStoreRefsDto, CampaignLoyaltyVoucherDto } from './dto/campaign-settings.dto.js';
import type { CreateLoyaltyCampaignDto } from './dto/create-loyalty-campaign.dto.js';
import type { ListLoyaltyCampaignsQueryDto, LoyaltyCampaignListDto } from './dto/list-loyalty-campaigns.dto.js';
import { type LoyaltyCampaignDto, toLoyaltyCampaignDto } from './dto/loyalty-campaign.dto.js';
import type { UpdateLoyaltyCampaignDto } from './dto/update-loyalty-campaign.dto.js';

export function cardJobId(campaignId: string): string {
  return `cards-${campaignId}`;
}

/** The rules of loyalty campaigns (create, get, update, list, delete). */
@Injectable()
export class CampaignsService {
  private readonly logger = new Logger(CampaignsService.name);

  constructor(
    private readonly campaigns: CampaignRepository,
    private readonly categories: CategoryRepository,
    private readonly jobs: JobQueueService,
    private readonly transactions: TransactionRunner,
    private readonly asyncActions: AsyncActionsService,
  ) {}

  async create(project: ProjectContext, dto: CreateLoyaltyCampaignDto): Promise<LoyaltyCampaignDto> {
    const category = await this.categoryRef(project, dto.category, dto.category_id);
    const startDate = dto.start_date !== undefined ? new Date(dto.start_date) : null;
    const expirationDate = dto.expiration_date !== undefined ? new Date(dto.expiration_date) : null;
    checkDates(startDate, expirationDate, dto.validity_timeframe ?? null);
    if (dto.access_settings) requireAreasAndStores(project);
    const voucher = voucherModel(dto.voucher);
    const count = dto.vouchers_count ?? 0;
    const spaceProblem = checkCodeSpace(voucher.code_config, count);
    if (spaceProblem) throw ApiError.invalidPayload(spaceProblem);

    const status = count > 0 ? 'IN_PROGRESS' : 'DONE';
    let stored: StoredCampaign;
    try {
      stored = await this.campaigns.create(
        {
          id: base62Id('camp_', 24),
          projectId: project.id,
          name: dto.name,
          description: dto.description ?? null,
          type: dto.type ?? 'AUTO_UPDATE',
          autoJoin: dto.auto_join ?? false,
          useVoucherMetadataSchema: dto.use_voucher_metadata_schema ?? false,
          active: dto.active ?? true,
          protected: dto.protected ?? false,
          startDate,
          expirationDate,
          validityTimeframe: dto.validity_timeframe ? { ...dto.validity_timeframe } : null,
          validityDayOfWeek: dto.validity_day_of_week ?? null,
          validityHours: dto.validity_hours ? plain(dto.validity_hours) : null,
          activityDurationAfterPublishing: dto.activity_duration_after_publishing ?? null,
          metadata: dto.metadata ?? {},
          voucher,
          loyaltyTiersExpiration: dto.loyalty_tiers_expiration ? plain(dto.loyalty_tiers_expiration) : null,
          accessAssignments: applyAccessSettings([], dto.access_settings),
          vouchersTarget: count,
          creationStatus: status,
          vouchersGenerationStatus: status,
        },
        hexId('lprg_'),
        category,
      );
    } catch (error) {
      if (isUniqueViolation(error, CAMPAIGN_NAME_CONSTRAINT)) throw ApiError.duplicate('campaign', 'name', dto.name, dto.name);
      throw error;
    }
    if (count > 0) await this.startGeneration(stored.campaign.id);
    return this.view(project, stored);
  }

  async get(project: ProjectContext, idOrName: string): Promise<LoyaltyCampaignDto> {
    return this.view(project, await this.find(project, idOrName));
  }

  async list(project: ProjectContext, query: ListLoyaltyCampaignsQueryDto): Promise<LoyaltyCampaignListDto> {
    const limit = query.limit ?? 10;
    const order = query.order ?? '-created_at';
    const { rows, total } = await this.campaigns.list(project.id, {
      limit,
      offset: ((query.page ?? 1) - 1) * limit,
      sort: order.endsWith('updated_at') ? 'updated_at' : 'created_at',
      direction: order.startsWith('-') ? 'DESC' : 'ASC',
    });
    const withAccess = project.features?.areasAndStores === true && (query.expand ?? []).includes('access_settings_assignments');
    return { object: 'list', data_ref: 'campaigns', campaigns: rows.map((row) => toLoyaltyCampaignDto({ ...row, withAccessSettings: withAccess })), total };
  }

  async update(project: ProjectContext, idOrName: string, dto: UpdateLoyaltyCampaignDto): Promise<LoyaltyCampaignDto> {
    const { campaign } = await this.find(project, idOrName);
    if (campaign.protected && dto.protected !== false) throw ApiError.resourceProtected('campaign', campaign.id, 'modified');
    const category = dto.category === undefined && dto.category_id === undefined ? undefined : await this.categoryRef(project, dto.category, dto.category_id);
    const patch: CampaignPatch = {};
    if (dto.start_date !== undefined) patch.startDate = dto.start_date === null ? null : new Date(dto.start_date);
    if (dto.expiration_date !== undefined) patch.expirationDate = dto.expiration_date === null ? null : new Date(dto.expiration_date);
    if (dto.validity_timeframe !== undefined) patch.validityTimeframe = dto.validity_timeframe === null ? null : { ...dto.validity_timeframe };
    checkDates(
      patch.startDate !== undefined ? patch.startDate : campaign.startDate,
      patch.expirationDate !== undefined ? patch.expirationDate : campaign.expirationDate,
      patch.validityTimeframe !== undefined ? patch.validityTimeframe : campaign.validityTimeframe,
    );
    if (dto.access_settings) {
      requireAreasAndStores(project);
      patch.accessAssignments = applyAccessSettings(campaign.accessAssignments, dto.access_settings);
    }
    if (dto.validity_day_of_week !== undefined) patch.validityDayOfWeek = dto.validity_day_of_week;
    if (dto.validity_hours !== undefined) patch.validityHours = dto.validity_hours === null ? null : plain(dto.validity_hours);
    if (dto.description !== undefined) patch.description = dto.description;
    if (dto.activity_duration_after_publishing !== undefined) patch.activityDurationAfterPublishing = dto.activity_duration_after_publishing;
    if (dto.loyalty_tiers_expiration !== undefined) patch.loyaltyTiersExpiration = dto.loyalty_tiers_expiration === null ? null : plain(dto.loyalty_tiers_expiration);
    if (dto.auto_join != null) patch.autoJoin = dto.auto_join;
    if (dto.active != null) patch.active = dto.active;
    if (dto.protected != null) patch.protected = dto.protected;
    if (dto.type != null) patch.type = dto.type;
    if (dto.metadata || dto.unset_metadata_fields) {
      const metadata = { ...campaign.metadata, ...(dto.metadata ?? {}) };
      for (const key of dto.unset_metadata_fields ?? []) delete metadata[key];
      patch.metadata = metadata;
    }
    // join_once is accepted and ignored: it is always true for loyalty campaigns.
    const updated = await this.campaigns.update(project.id, campaign.id, patch, category);
    if (!updated) throw ApiError.notFound('campaign', idOrName);
    return this.view(project, updated);
  }

  /**
   * Deletes the campaign and answers, as Voucherify does, the id of its async action (CAMPAIGN.VOUCHERS_DELETE),
   * recorded in the deletion's transaction. To the bin: done in that transaction (one UPDATE), the action
   * DONE. For good (`force`): the campaign is hidden at once and the action IN_PROGRESS; the worker deletes its
   * cards and their history in bounded batches and turns the action DONE with the last one
   * (CampaignDeletionService). A refused or failed deletion rolls back and leaves no action.
   */
  async delete(project: ProjectContext, idOrName: string, force: boolean): Promise<AsyncActionIdDto> {
    const startedAt = new Date();
    const { campaign } = await this.find(project, idOrName);
    const actionId = await this.transactions.run(async (tx) => {
      const held = await this.campaigns.lockForDeletion(tx, project.id, campaign.id);
      if (!held) throw ApiError.notFound('campaign', idOrName);
      if (held.protected) throw ApiError.resourceProtected('campaign', campaign.id, 'deleted');
      const type = 'CAMPAIGN.VOUCHERS_DELETE';
      if (force) {
        const id = await this.asyncActions.recordStarted(project, tx, { type, startedAt });
        await this.campaigns.markForDeletion(tx, project.id, campaign.id, id);
        return id;
      }
      await this.campaigns.softDelete(tx, project.id, campaign.id);
      return this.asyncActions.recordDone(project, tx, { type, startedAt, result: { message: `Moved ${vouchers(held.cards)} to the bin.`, done_count: held.cards } });
    });
    return { async_action_id: actionId };
  }

  /**
   * Queues the card job after the campaign is committed. If Redis refuses, the campaign still stands
   * (IN_PROGRESS) and the worker's periodic sweep queues the job once Redis is back: nothing is lost and
   * the client is not asked to retry a create that already happened.
   */
  private async startGeneration(campaignId: string): Promise<void> {
    try {
      await this.jobs.enqueue(JobName.GenerateCards, { campaignId }, { jobId: cardJobId(campaignId) });
    } catch (error) {
      this.logger.warn({ campaign_id: campaignId, err: error }, 'could not queue card generation; the sweep will queue it');
    }
  }

  /** Enrolment made a card for its member: the campaign counts it, in the enrolment's transaction. */
  async countEnrolmentCard(tx: Tx, campaignId: string): Promise<void> {
    await this.campaigns.countEnrolmentCard(tx, campaignId);
  }

  /** A live campaign by id or name, or 404 `campaign`. */
  async find(project: ProjectContext, idOrName: string): Promise<StoredCampaign> {
    const stored = await this.campaigns.findByIdOrName(project.id, idOrName);
    if (!stored) throw ApiError.notFound('campaign', idOrName);
    return stored;
  }

  private async categoryRef(project: ProjectContext, name: string | null | undefined, id: string | null | undefined): Promise<CategoryRef> {
    if (name != null && id != null) throw ApiError.invalidPayload('Send either category (a name) or category_id, not both');
    if (name != null) return { name };
    if (id == null) return null;
    if (!(await this.categories.findById(project.id, id))) throw ApiError.notFound('category', id);
    return { id };
  }

  private view(project: ProjectContext, stored: StoredCampaign): LoyaltyCampaignDto {
    return toLoyaltyCampaignDto({ ...stored, withAccessSettings: project.features?.areasAndStores === true });
  }
}

/** "1 voucher", "3 vouchers": the message of a deletion's async action. */
export function vouchers(count: number): string {
  return `${count} voucher${count === 1 ? '' : 's'}`;
}

function checkDates(start: Date | null, expiration: Date | null, timeframe: Campaign['validityTimeframe']): void {
  if (start && expiration && expiration < start) throw ApiError.invalidPayload('expiration_date must not be before start_date');
  if (timeframe && !start) throw ApiError.invalidPayload('validity_timeframe requires start_date');
}

function requireAreasAndStores(project: ProjectContext): void {
  if (project.features?.areasAndStores !== true) {
    throw ApiError.invalidPayload('access_settings needs the Areas and Stores feature, which is off for this project');
  }
}

function voucherModel(dto: CampaignLoyaltyVoucherDto | undefined): VoucherModel {
  const codeConfig = resolveCodeConfig(dto?.code_config);
  if (typeof codeConfig === 'string') throw ApiError.invalidPayload(codeConfig);
  const loyaltyCard: VoucherModel['loyalty_card'] = { points: dto?.loyalty_card?.points ?? 0 };
  if (dto?.loyalty_card?.expiration_rules) loyaltyCard.expiration_rules = plain(dto.loyalty_card.expiration_rules);
  return { type: 'LOYALTY_CARD', loyalty_card: loyaltyCard, redemption: { quantity: dto?.redemption?.quantity ?? null }, code_config: codeConfig };
}

/** Assignments after applying `assign` then `unassign`; one row per area, store or whole area. */
function applyAccessSettings(current: AccessAssignment[], settings: AccessSettingsDto | undefined): AccessAssignment[] {
  if (!settings) return current;
  const key = (a: Pick<AccessAssignment, 'area_id' | 'area_store_id' | 'all_stores'>) => `${a.area_id}|${a.area_store_id}|${a.all_stores}`;
  const byKey = new Map(current.map((a) => [key(a), a]));
  const refs = (r: AreaStoreRefsDto | undefined) => [
    ...(r?.areas_ids ?? []).map((id) => ({ area_id: id, area_store_id: null, all_stores: false })),
    ...(r?.area_all_stores_ids ?? []).map((id) => ({ area_id: id, area_store_id: null, all_stores: true })),
    ...(r?.area_stores_ids ?? []).map((id) => ({ area_id: null, area_store_id: id, all_stores: false })),
  ];
  const now = new Date().toISOString();
  for (const ref of refs(settings.assign)) if (!byKey.has(key(ref))) byKey.set(key(ref), { id: hexId('arsca_'), ...ref, created_at: now });
  for (const ref of refs(settings.unassign)) byKey.delete(key(ref));
  return [...byKey.values()];
}

/** DTO instances → plain JSON for jsonb columns. */
function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
