import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import { prepared, runPrepared } from '../database/prepared.js';
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

/** The successful redemptions (not rolled back) of the reward `reward` (an expression), counted through their partial index. */
function succeededOfSql(reward: string): string {
  return `(SELECT count(*)::int FROM redemptions x WHERE x.project_id = ${reward}.project_id AND x.reward_id = ${reward}.id AND x.object = 'redemption' AND x.status = 'SUCCEEDED')`;
}

/**
 * A reward's `redeemed` as answered (`r`: its row in the statement): the column for a reward with a stock, which
 * every redemption takes a unit of (`takeUnit`); its successful redemptions counted for a reward without one,
 * whose redemptions leave its row alone (`takeUnlimited`: docs/rewards.md, "Stock").
 */
export function redeemedSql(r: string): string {
  return `(CASE WHEN ${r}.stock IS NULL THEN ${succeededOfSql(r)} ELSE ${r}.redeemed END)`;
}

/** The columns of a reward, as a redemption reads it before its transaction. */
const REWARD_COLUMNS = 'id, project_id, name, type, parameters, stock, redeemed, attributes, metadata, created_at, updated_at';

/**
 * The reward a redemption asks for, read before its transaction. `redeemed` is the column: the units taken of a
 * stock, not counted for a reward without one (a redemption does not show it).
 */
export const FIND_TO_REDEEM = prepared('rewards_find_to_redeem', `SELECT ${REWARD_COLUMNS} FROM rewards WHERE project_id = $1 AND id = ANY($2::text[])`);

/**
 * A unit of a reward with a stock: `redeemed` + 1 if a unit is left (or if it has no stock any more), checked and
 * written by one statement.
 */
export const TAKE_UNIT = prepared(
  'rewards_take_unit',
  'UPDATE rewards SET redeemed = redeemed + 1 WHERE project_id = $1 AND id = $2 AND (stock IS NULL OR redeemed < stock) RETURNING redeemed, stock',
);

/**
 * `$3` units of a reward for a batch of its redemptions: as many as its stock has left (all of them when it has no
 * stock any more), checked and written by one statement; `taken` is how many. The CTE locks the row first, so
 * `held.redeemed` is the count the update starts from: `FOR NO KEY UPDATE`, the UPDATE's own lock, which waits for
 * other takers and not for the redemptions that hold the row `FOR KEY SHARE` (HOLD_UNLIMITED). A batch that read the
 * reward without a stock holds it so before it takes units of a stock set since; with `FOR UPDATE` two such batches
 * each waited for the other's hold (a deadlock, seen in the suite).
 */
export const TAKE_UNITS = prepared(
  'rewards_take_units',
  `WITH held AS (SELECT id, redeemed FROM rewards WHERE project_id = $1 AND id = $2 FOR NO KEY UPDATE)
   UPDATE rewards r SET redeemed = CASE WHEN r.stock IS NULL THEN r.redeemed + $3 ELSE least(r.stock, r.redeemed + $3) END
   FROM held WHERE r.id = held.id RETURNING (r.redeemed - held.redeemed)::int AS taken`,
);

/** Units taken by TAKE_UNITS that a batch did not use (their redemptions were refused for their points) given back. */
export const RETURN_UNITS = prepared(
  'rewards_return_units',
  'UPDATE rewards SET redeemed = CASE WHEN stock IS NULL THEN redeemed ELSE greatest(redeemed - $3, 0) END WHERE project_id = $1 AND id = $2',
);

/**
 * A redemption of a reward that had no stock when it was read: the row held `FOR KEY SHARE` (which redemptions
 * of the reward share, and a change of its stock waits for: `update`) and its stock as it is now.
 */
export const HOLD_UNLIMITED = prepared('rewards_hold_unlimited', 'SELECT stock FROM rewards WHERE project_id = $1 AND id = $2 FOR KEY SHARE');

/** A rollback's unit given back: `redeemed` − 1 for a reward with a stock (never below 0); a reward without one keeps its row as it is (still locked: `update`). */
export const RETURN_UNIT = prepared(
  'rewards_return_unit',
  'UPDATE rewards SET redeemed = CASE WHEN stock IS NULL THEN redeemed ELSE greatest(redeemed - 1, 0) END WHERE project_id = $1 AND id = $2',
);

/** Before a new stock is written: the row, held against every redemption and rollback of the reward (`FOR UPDATE` waits for their KEY SHARE and UPDATE). */
const LOCK_FOR_STOCK = 'SELECT 1 FROM rewards WHERE project_id = $1 AND id = $2 FOR UPDATE';

/**
 * A new stock (`$3`), written only if not below the units redeemed; a reward that had none gets its `redeemed`
 * counted from its redemptions (all committed: LOCK_FOR_STOCK waited for them). Its row, or none.
 */
const SET_STOCK = `UPDATE rewards r SET stock = $3, redeemed = ${redeemedSql('r')}, updated_at = clock_timestamp()
   WHERE r.project_id = $1 AND r.id = $2 AND ${redeemedSql('r')} <= $3 RETURNING r.id`;

/**
 * The reward catalogue: the only writer of `rewards`. Every query names the project. The stock columns change
 * only by conditional statements (`update` of `stock`, `takeUnit`, `returnUnit`), each one row's atomic check
 * and write, so no interleaving oversells; the CHECK `redeemed <= stock` is the last guard for every writer. A
 * reward without a stock is not a shared point of its redemptions: they only hold its row `FOR KEY SHARE`
 * (`takeUnlimited`), and its `redeemed` is counted from them when it is read (`redeemedSql`). The catalogue's
 * reads (`find`, `list`, `update`) answer that count.
 */
@Injectable()
export class RewardRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(reward: NewReward): Promise<Reward> {
    await this.dataSource.getRepository(Reward).insert(reward as QueryDeepPartialEntity<Reward>);
    return (await this.find(reward.projectId, reward.id)) as Reward;
  }

  /** A reward with its `redeemed` as answered. */
  async find(projectId: string, id: string, tx?: Tx): Promise<Reward | null> {
    const reward = await (tx ?? this.dataSource).getRepository(Reward).findOneBy({ projectId, id });
    if (reward) await this.countUnlimited(projectId, [reward], tx);
    return reward;
  }

  /** The reward a redemption asks for (FIND_TO_REDEEM: `redeemed` counts the units of a stock only). */
  async findToRedeem(projectId: string, id: string): Promise<Reward | null> {
    return (await this.findToRedeemAll(projectId, [id])).get(id) ?? null;
  }

  /** The rewards redemptions ask for (FIND_TO_REDEEM, one statement), by id; an id without one is absent. */
  async findToRedeemAll(projectId: string, ids: string[]): Promise<Map<string, Reward>> {
    const rows = await runPrepared<RewardRow[]>(this.dataSource, FIND_TO_REDEEM, [projectId, [...new Set(ids)]]);
    return new Map(rows.map((row) => [row.id, toReward(row)]));
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
    await this.countUnlimited(projectId, rows);
    return { rows, total };
  }

  /** The rewards without a stock get their `redeemed` counted from their redemptions (one statement). */
  private async countUnlimited(projectId: string, rewards: Reward[], tx?: Tx): Promise<void> {
    const unlimited = rewards.filter((reward) => reward.stock === null);
    if (!unlimited.length) return;
    const rows = (await (tx ?? this.dataSource).query(`SELECT r.id, ${redeemedSql('r')} AS redeemed FROM rewards r WHERE r.project_id = $1 AND r.id = ANY($2::text[])`, [
      projectId,
      unlimited.map((reward) => reward.id),
    ])) as { id: string; redeemed: number }[];
    const counts = new Map(rows.map((row) => [row.id, row.redeemed]));
    for (const reward of unlimited) reward.redeemed = counts.get(reward.id) ?? 0;
  }

  /**
   * Changes a reward. A new `stock` is written only if it is not below the units already redeemed, checked in the
   * same statement as the write, after the row is held against the reward's redemptions and rollbacks
   * (LOCK_FOR_STOCK): a reward that had no stock gets its `redeemed` counted from its redemptions then, and a
   * redemption that read it without a stock finds the stock under its lock and takes a unit (`takeUnlimited`).
   */
  async update(projectId: string, id: string, patch: RewardPatch): Promise<RewardUpdate> {
    return this.dataSource.transaction(async (tx) => {
      if (typeof patch.stock === 'number') {
        if (!((await tx.query(LOCK_FOR_STOCK, [projectId, id])) as unknown[]).length) return { missing: true };
        const [written] = (await tx.query(SET_STOCK, [projectId, id, patch.stock])) as [unknown[], number];
        if (!written.length) return { belowRedeemed: ((await this.find(projectId, id, tx)) as Reward).redeemed };
      }
      const { stock: _stock, ...rest } = patch;
      const set = { ...rest, ...(patch.stock === null ? { stock: null } : {}), updatedAt: () => 'clock_timestamp()' } as QueryDeepPartialEntity<Reward>;
      await tx.createQueryBuilder().update(Reward).set(set).where('project_id = :projectId AND id = :id', { projectId, id }).execute();
      const reward = await this.find(projectId, id, tx);
      return reward ? { updated: reward } : { missing: true };
    });
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
   * A redemption takes one unit of a reward with a stock, in its transaction: `redeemed` + 1 if the reward has a
   * unit left, checked and written by one statement (TAKE_UNIT), so concurrent redemptions take the row in turn
   * and the (k+1)th of k units finds none. Null: no unit left (or no such reward). The row stays locked until the
   * caller's transaction ends: take the unit last, after the cards (docs/architecture.md, "How the engine locks").
   */
  async takeUnit(tx: Tx, projectId: string, id: string): Promise<UnitTaken | null> {
    const [rows] = await runPrepared<[UnitTaken[], number]>(tx, TAKE_UNIT, [projectId, id]);
    return rows[0] ?? null;
  }

  /**
   * A redemption of a reward read without a stock: its row held `FOR KEY SHARE` until the caller's transaction
   * ends (redemptions share it; a new stock waits for them), no unit taken. If a stock was set since the reward
   * was read, a unit of it is taken instead (`takeUnit`). False: no such reward, or no unit left of its new stock.
   */
  async takeUnlimited(tx: Tx, projectId: string, id: string): Promise<boolean> {
    const [row] = await runPrepared<{ stock: number | null }[]>(tx, HOLD_UNLIMITED, [projectId, id]);
    if (!row) return false;
    return row.stock === null || (await this.takeUnit(tx, projectId, id)) !== null;
  }

  /**
   * Units of a reward for a batch of `count` redemptions (RedemptionBatches), in its transaction after the cards:
   * read without a stock (`unlimited`), its row held FOR KEY SHARE as `takeUnlimited` holds it, and every unit
   * given (uncounted: its `redeemed` is counted from its redemptions) unless a stock was set since; else
   * TAKE_UNITS. `left`: how many were given (0 when there is no such reward); `counted`: taken from a stock.
   */
  async takeUnits(tx: Tx, projectId: string, id: string, count: number, unlimited: boolean): Promise<{ left: number; counted: boolean }> {
    if (unlimited) {
      const [row] = await runPrepared<{ stock: number | null }[]>(tx, HOLD_UNLIMITED, [projectId, id]);
      if (!row) return { left: 0, counted: false };
      if (row.stock === null) return { left: count, counted: false };
    }
    const [rows] = await runPrepared<[{ taken: number }[], number]>(tx, TAKE_UNITS, [projectId, id, count]);
    return { left: rows[0]?.taken ?? 0, counted: true };
  }

  /** Units a batch took and did not use, given back (RETURN_UNITS). */
  async returnUnits(tx: Tx, projectId: string, id: string, count: number): Promise<void> {
    await runPrepared(tx, RETURN_UNITS, [projectId, id, count]);
  }

  /** A rollback gives the unit back, in its transaction (RETURN_UNIT; the row is locked either way, as `update` needs); false when there is no such reward. */
  async returnUnit(tx: Tx, projectId: string, id: string): Promise<boolean> {
    const [, affected] = await runPrepared<[unknown, number]>(tx, RETURN_UNIT, [projectId, id]);
    return affected > 0;
  }
}

/** A reward's row as FIND_TO_REDEEM reads it. */
interface RewardRow {
  id: string;
  project_id: string;
  name: string;
  type: RewardType;
  parameters: Reward['parameters'];
  stock: number | null;
  redeemed: number;
  attributes: Reward['attributes'];
  metadata: Reward['metadata'];
  created_at: Date;
  updated_at: Date | null;
}

function toReward(row: RewardRow): Reward {
  return Object.assign(new Reward(), {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    type: row.type,
    parameters: row.parameters,
    stock: row.stock,
    redeemed: row.redeemed,
    attributes: row.attributes,
    metadata: row.metadata,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });
}
