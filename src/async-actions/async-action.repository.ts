import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Tx } from '../database/transaction-runner.js';
import { AsyncAction, type AsyncActionResult } from './async-action.entity.js';

/** The `async_actions` table: written in the caller's transaction, read by project, swept by age. */
@Injectable()
export class AsyncActionRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** In the transaction of the work the action records: both commit, or neither. */
  async insert(tx: Tx, action: AsyncAction): Promise<void> {
    await tx.getRepository(AsyncAction).insert(action);
  }

  /** An IN_PROGRESS action's percent done (never back, never past 99: 100 is its end, `finish`). */
  async reportProgress(tx: Tx, id: string, progress: number): Promise<void> {
    await tx.query(`UPDATE async_actions SET progress = $2 WHERE id = $1 AND status = 'IN_PROGRESS' AND progress < $2`, [id, Math.min(Math.max(Math.floor(progress), 0), 99)]);
  }

  /** An IN_PROGRESS action is DONE, in the transaction of its last work: its result, 100 %, when. */
  async finish(tx: Tx, id: string, result: AsyncActionResult): Promise<void> {
    await tx.query(
      `UPDATE async_actions SET status = 'DONE', progress = 100, result = $2, updated_at = greatest(clock_timestamp(), created_at) WHERE id = $1 AND status = 'IN_PROGRESS'`,
      [id, JSON.stringify(result)],
    );
  }

  async findInProject(projectId: string, id: string): Promise<AsyncAction | null> {
    return this.dataSource.getRepository(AsyncAction).findOneBy({ projectId, id });
  }

  /** The project's actions made before `before` (all when null), newest first, at most `limit`. */
  async list(projectId: string, before: Date | null, limit: number): Promise<AsyncAction[]> {
    const query = this.dataSource
      .getRepository(AsyncAction)
      .createQueryBuilder('a')
      .where('a.project_id = :projectId', { projectId })
      .orderBy('a.created_at', 'DESC')
      .addOrderBy('a.id', 'DESC')
      .limit(limit);
    if (before) query.andWhere('a.created_at < :before', { before });
    return query.getMany();
  }

  /** Deletes up to `limit` actions made more than `ttlMs` ago, rows another transaction holds left for later; how many. */
  async deleteExpired(ttlMs: number, limit: number): Promise<number> {
    const [row] = (await this.dataSource.query(
      `WITH gone AS (
         DELETE FROM async_actions WHERE id IN (
           SELECT id FROM async_actions WHERE created_at < now() - $1 * interval '1 millisecond' LIMIT $2 FOR UPDATE SKIP LOCKED
         )
         RETURNING 1
       )
       SELECT count(*)::int AS n FROM gone`,
      [ttlMs, limit],
    )) as { n: number }[];
    return row.n;
  }
}
