import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import type { Tx } from '../database/transaction-runner.js';
import { Reward, type RewardType } from './reward.entity.js';

export type NewReward = Omit<Reward, 'createdAt' | 'updatedAt' | 'redeemed'>;
export type RewardPatch = Partial<Pick<Reward, 'name' | 'parameters' | 'stock' | 'attributes' | 'metadata'>>;

/** What a conditional update found: the reward changed, or why not. */
export type RewardUpdate = { updated: Reward } | { missing: true } | { belowRedeemed: number };

/** A unit taken from a reward's stock, and what is left of it (null: unlimited). */
export interface UnitTaken {
  redeemed: number;
  stock: number | null;
}

/**
 * The reward catalogue: the only writer of `rewards`. Every query names the project. The stock columns change
 * only by conditional statements (`update` of `stock`, `takeUnit`, `returnUnit`), each one row's atomic check
 * and write, so no interleaving oversells; the CHECK `redeemed <= stock` is the last guard for every writer.
 */
@Injectable()
export class RewardRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(reward: NewReward): Promise<Reward> {
    await this.dataSource.getRepository(Reward).insert(reward as QueryDeepPartialEntity<Reward>);
    return (await this.find(reward.projectId, reward.id)) as Reward;
  }

  find(projectId: string, id: string): Promise<Reward | null> {
    return this.dataSource.getRepository(Reward).findOneBy({ projectId, id });
  }

  /** The project's rewards, oldest first; with `assignmentId`, only the reward of that assignment (of a live campaign). */
  async list(projectId: string, page: { limit: number; offset: number; assignmentId?: string }): Promise<{ rows: Reward[]; total: number }> {
    const query = this.dataSource.getRepository(Reward).createQueryBuilder('r').where('r.project_id = :projectId', { projectId });
    if (page.assignmentId !== undefined) {
      query.andWhere(
        `EXISTS (SELECT 1 FROM reward_assignments a JOIN campaigns c ON c.id = a.campaign_id AND c.deleted_at IS NULL
                 WHERE a.id = :assignmentId AND a.reward_id = r.id AND a.project_id = :projectId)`,
        { assignmentId: page.assignmentId },
      );
    }
    const [rows, total] = await query.orderBy('r.created_at', 'ASC').addOrderBy('r.id', 'ASC').take(page.limit).skip(page.offset).getManyAndCount();
    return { rows, total };
  }

  /**
   * Changes a reward. A new `stock` is written only if it is not below the units already redeemed, checked in the
   * same statement as the write (a redemption taking a unit meanwhile waits for the row, or is waited for).
   */
  async update(projectId: string, id: string, patch: RewardPatch): Promise<RewardUpdate> {
    const query = this.dataSource
      .createQueryBuilder()
      .update(Reward)
      .set({ ...patch, updatedAt: () => 'clock_timestamp()' } as QueryDeepPartialEntity<Reward>)
      .where('project_id = :projectId AND id = :id', { projectId, id });
    if (typeof patch.stock === 'number') query.andWhere('redeemed <= :stock', { stock: patch.stock });
    const result = await query.execute();
    const reward = await this.find(projectId, id);
    if (!reward) return { missing: true };
    return result.affected ? { updated: reward } : { belowRedeemed: reward.redeemed };
  }

  /**
   * Holds the rewards that assignments are being made for, until the caller's transaction ends (`FOR KEY SHARE`,
   * which a deletion's `FOR UPDATE` waits for, and which waits for a deletion in progress): their types by id, a
   * reward deleted meanwhile left out. One statement, in id order.
   */
  async holdTypes(tx: Tx, projectId: string, ids: string[]): Promise<Map<string, RewardType>> {
    const rows = (await tx.query(`SELECT id, type FROM rewards WHERE project_id = $1 AND id = ANY($2::text[]) ORDER BY id FOR KEY SHARE`, [projectId, ids])) as { id: string; type: RewardType }[];
    return new Map(rows.map((row) => [row.id, row.type]));
  }

  /** Takes the reward's row for its deletion (FOR UPDATE): assignments made meanwhile wait, then find it gone. */
  async lockForDeletion(tx: Tx, projectId: string, id: string): Promise<boolean> {
    const rows = (await tx.query(`SELECT 1 FROM rewards WHERE project_id = $1 AND id = $2 FOR UPDATE`, [projectId, id])) as unknown[];
    return rows.length > 0;
  }

  async delete(tx: Tx, projectId: string, id: string): Promise<void> {
    await tx.query(`DELETE FROM rewards WHERE project_id = $1 AND id = $2`, [projectId, id]);
  }

  /**
   * A redemption takes one unit, in its transaction: `redeemed` + 1 if the reward has a unit left (or no
   * stock), checked and written by one statement, so concurrent redemptions take the row in turn and the
   * (k+1)th of k units finds none. Null: no unit left (or no such reward). The row stays locked until the
   * caller's transaction ends: take the unit last, after the cards (docs/architecture.md, "How the engine locks").
   */
  async takeUnit(tx: Tx, projectId: string, id: string): Promise<UnitTaken | null> {
    const [rows] = (await tx.query(
      `UPDATE rewards SET redeemed = redeemed + 1 WHERE project_id = $1 AND id = $2 AND (stock IS NULL OR redeemed < stock) RETURNING redeemed, stock`,
      [projectId, id],
    )) as [UnitTaken[], number];
    return rows[0] ?? null;
  }

  /** A rollback gives the unit back, in its transaction; false when there was none to give back. */
  async returnUnit(tx: Tx, projectId: string, id: string): Promise<boolean> {
    const [, affected] = (await tx.query(`UPDATE rewards SET redeemed = redeemed - 1 WHERE project_id = $1 AND id = $2 AND redeemed > 0`, [projectId, id])) as [unknown, number];
    return affected > 0;
  }
}
