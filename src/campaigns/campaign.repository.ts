import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, IsNull, type Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import type { Tx } from '../database/transaction-runner.js';
import { Campaign } from './campaign.entity.js';
import type { Category } from './category.entity.js';
import { CategoryRepository } from './category.repository.js';
import { LoyaltyProgram } from './loyalty-program.entity.js';

export const CAMPAIGN_NAME_CONSTRAINT = 'uq_campaigns_project_name_live';

/** A card made at enrolment counted by its campaign (bench/'s plain baseline sends it too). */
export const COUNT_ENROLMENT_CARD = 'UPDATE campaigns SET vouchers_count = vouchers_count + 1, vouchers_target = vouchers_target + 1 WHERE id = $1';

export type NewCampaign = Omit<
  Campaign,
  | 'project'
  | 'category'
  | 'createdAt'
  | 'updatedAt'
  | 'deletedAt'
  | 'vouchersCount'
  | 'generationError'
  | 'categoryId'
  | 'generationTurnAt'
  | 'generationLeaseUntil'
  | 'generationFailures'
  | 'deletionActionId'
  | 'deletionTurnAt'
  | 'deletionLeaseUntil'
>;

/** Columns a campaign update may write; `vouchers_count` and the statuses belong to card generation. */
export type CampaignPatch = Partial<
  Pick<
    Campaign,
    | 'description'
    | 'type'
    | 'autoJoin'
    | 'active'
    | 'protected'
    | 'startDate'
    | 'expirationDate'
    | 'validityTimeframe'
    | 'validityDayOfWeek'
    | 'validityHours'
    | 'activityDurationAfterPublishing'
    | 'categoryId'
    | 'metadata'
    | 'loyaltyTiersExpiration'
    | 'accessAssignments'
  >
>;

export interface StoredCampaign {
  campaign: Campaign;
  category: Category | null;
  programId: string;
}

export type CategoryRef = { id: string } | { name: string } | null;

@Injectable()
export class CampaignRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly categories: CategoryRepository,
  ) {}

  /** Campaign, its program and (for a category given by name) the category, in one transaction. */
  async create(campaign: NewCampaign, programId: string, category: CategoryRef): Promise<StoredCampaign> {
    return this.dataSource.transaction(async (manager) => {
      const categoryRow = category && 'name' in category ? await this.categories.ensureByName(campaign.projectId, category.name, manager) : null;
      const categoryId = categoryRow?.id ?? (category && 'id' in category ? category.id : null);
      await manager.getRepository(Campaign).insert(jsonSafe({ ...campaign, categoryId }));
      await manager.getRepository(LoyaltyProgram).insert({ id: programId, projectId: campaign.projectId, campaignId: campaign.id, metadata: {} });
      return this.load(campaign.projectId, campaign.id, manager.getRepository(Campaign)) as Promise<StoredCampaign>;
    });
  }

  /**
   * A live (not deleted) campaign by id or by name: Voucherify's `{campaignId}` accepts both. An id
   * match wins over a campaign that happens to be named like another's id.
   */
  async findByIdOrName(projectId: string, idOrName: string): Promise<StoredCampaign | null> {
    const campaign = await this.withRelations(this.dataSource.getRepository(Campaign))
      .where('c.project_id = :projectId AND c.deleted_at IS NULL AND (c.id = :value OR c.name = :value)', { projectId, value: idOrName })
      .orderBy('c.id = :value', 'DESC')
      .getOne();
    return campaign ? stored(campaign) : null;
  }

  async list(projectId: string, page: { limit: number; offset: number; sort: 'created_at' | 'updated_at'; direction: 'ASC' | 'DESC' }): Promise<{ rows: StoredCampaign[]; total: number }> {
    const sortColumn = page.sort === 'created_at' ? 'c.created_at' : 'COALESCE(c.updated_at, c.created_at)';
    const query = this.withRelations(this.dataSource.getRepository(Campaign))
      .where('c.project_id = :projectId AND c.deleted_at IS NULL', { projectId })
      .orderBy(sortColumn, page.direction)
      .addOrderBy('c.id', page.direction)
      .limit(page.limit)
      .offset(page.offset);
    const [campaigns, total] = await Promise.all([query.getMany(), query.clone().orderBy().limit().offset().getCount()]);
    return { rows: campaigns.map(stored), total };
  }

  /** Writes only the given columns, so a concurrent card-generation count is never overwritten. */
  async update(projectId: string, id: string, patch: CampaignPatch, category: CategoryRef | undefined): Promise<StoredCampaign | null> {
    return this.dataSource.transaction(async (manager) => {
      const values: CampaignPatch & { updatedAt: Date } = { ...patch, updatedAt: new Date() };
      if (category !== undefined) {
        values.categoryId = category === null ? null : 'name' in category ? (await this.categories.ensureByName(projectId, category.name, manager)).id : category.id;
      }
      const result = await manager.getRepository(Campaign).update({ projectId, id, deletedAt: IsNull() }, jsonSafe(values));
      return result.affected ? this.load(projectId, id, manager.getRepository(Campaign)) : null;
    });
  }

  /**
   * Locks a live campaign for its deletion, in the deletion's transaction, and returns what the deletion
   * decides on: its protection (a PUT setting it meanwhile waits, or is waited for) and its cards. null
   * when it is gone (deleted meanwhile). NO KEY UPDATE, the lock an UPDATE takes: card batches inserted
   * meanwhile (their foreign key's KEY SHARE) do not wait for a move to the bin. `vouchers_count` counts every card the campaign has: generated
   * batches and enrolment cards raise it in the transactions that insert them.
   */
  async lockForDeletion(tx: Tx, projectId: string, id: string): Promise<{ protected: boolean; cards: number } | null> {
    const [row] = (await tx.query(`SELECT protected, vouchers_count FROM campaigns WHERE project_id = $1 AND id = $2 AND deleted_at IS NULL FOR NO KEY UPDATE`, [projectId, id])) as {
      protected: boolean;
      vouchers_count: number;
    }[];
    return row ? { protected: row.protected, cards: Number(row.vouchers_count) } : null;
  }

  /** Soft delete (the bin), of a campaign `lockForDeletion` holds: the program stays (status DELETED) and the name is free again. */
  async softDelete(tx: Tx, projectId: string, id: string): Promise<void> {
    await tx.getRepository(Campaign).update({ projectId, id, deletedAt: IsNull() }, { deletedAt: new Date() });
  }

  /**
   * Permanent delete, of a campaign `lockForDeletion` holds, handed to the worker (CampaignDeletionService):
   * hidden at once as a move to the bin hides it (its name free again), its async action recorded, its card
   * count frozen in `vouchers_target` (the worker counts `vouchers_count` down as it deletes them).
   */
  async markForDeletion(tx: Tx, projectId: string, id: string, actionId: string): Promise<void> {
    await tx.query(
      `UPDATE campaigns SET deleted_at = now(), deletion_action_id = $3, vouchers_target = vouchers_count WHERE project_id = $1 AND id = $2 AND deleted_at IS NULL`,
      [projectId, id, actionId],
    );
  }

  /** Worker side: the job names the campaign by id; the row carries its project. */
  async findForGeneration(id: string): Promise<Campaign | null> {
    return this.dataSource.getRepository(Campaign).findOneBy({ id, deletedAt: IsNull() });
  }

  /** IN_PROGRESS → DONE or FAILED; conditional, so a late duplicate job cannot undo the outcome. */
  async finishGeneration(id: string, status: 'DONE' | 'FAILED', error: string | null = null): Promise<boolean> {
    const result = await this.dataSource
      .getRepository(Campaign)
      .update({ id, vouchersGenerationStatus: 'IN_PROGRESS' }, { vouchersGenerationStatus: status, creationStatus: status, generationError: error });
    return (result.affected ?? 0) > 0;
  }

  /**
   * Adds a generated batch to the campaign's `vouchers_count`, in the batch's transaction. Guarded (live,
   * IN_PROGRESS, not past the target): false when the guard fails, and the caller rolls the batch back, so
   * concurrent batches or duplicate jobs can never overshoot the requested count.
   */
  async countGeneratedCards(tx: Tx, id: string, cards: number): Promise<boolean> {
    const updated = (await tx.query(
      `UPDATE campaigns SET vouchers_count = vouchers_count + $2
       WHERE id = $1 AND deleted_at IS NULL AND vouchers_generation_status = 'IN_PROGRESS' AND vouchers_count + $2 <= vouchers_target
       RETURNING 1`,
      [id, cards],
    )) as [unknown[], number];
    return updated[1] > 0;
  }

  /**
   * A card made at enrolment counts towards the campaign, and the target moves with it so generation still
   * makes exactly the cards it was asked for. The campaign's row stays locked from here to the commit.
   */
  async countEnrolmentCard(tx: Tx, id: string): Promise<void> {
    await tx.query(COUNT_ENROLMENT_CARD, [id]);
  }

  /** Live campaigns whose cards are still being generated (the sweep re-queues their jobs). */
  async idsInProgress(limit: number): Promise<string[]> {
    const rows = await this.dataSource
      .getRepository(Campaign)
      .find({ where: { vouchersGenerationStatus: 'IN_PROGRESS', deletedAt: IsNull() }, select: { id: true }, order: { createdAt: 'ASC' }, take: limit });
    return rows.map((row) => row.id);
  }

  private async load(projectId: string, id: string, campaigns = this.dataSource.getRepository(Campaign)): Promise<StoredCampaign | null> {
    const campaign = await this.withRelations(campaigns).where('c.project_id = :projectId AND c.id = :id', { projectId, id }).getOne();
    return campaign ? stored(campaign) : null;
  }

  /**
   * Campaign with its category and program: one query (both are to-one joins, so limits stay exact). The
   * program is mapped onto `program` by its foreign key: Campaign has no relation to it (docs/decisions.md, issue 37).
   */
  private withRelations(campaigns: Repository<Campaign>) {
    return campaigns
      .createQueryBuilder('c')
      .leftJoinAndSelect('c.category', 'category')
      .innerJoinAndMapOne('c.program', LoyaltyProgram, 'program', 'program.campaign_id = c.id');
  }
}

function stored(campaign: Campaign): StoredCampaign {
  const { program } = campaign as Campaign & { program: LoyaltyProgram };
  return { campaign, category: campaign.category ?? null, programId: program.id };
}

/** TypeORM's deep-partial type cannot see through `unknown` inside jsonb columns; the values are plain JSON. */
function jsonSafe(values: Partial<Campaign>): QueryDeepPartialEntity<Campaign> {
  return values as QueryDeepPartialEntity<Campaign>;
}
