import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, Not } from 'typeorm';
import type { Tx } from '../../database/transaction-runner.js';
import { Distribution } from './distribution.entity.js';

/**
 * Wakes every worker's WebhookHousekeeping at commit (a recover, a resume or a deletion to carry out); the
 * webhook sweep finds the work too if no worker listened.
 */
export const NOTIFY_WORK = `pg_notify('loyalty_webhook_work', '')`;

/** A distribution the API no longer shows: deleted, its deliveries being deleted in the background. */
const LIVE = `status <> 'DELETED'`;

@Injectable()
export class DistributionRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Inserts the distribution unless its project already has `max` (deleted ones do not count); null then.
   * Concurrent creates of one project queue on a transaction-level advisory lock of the project's (the only
   * lock this transaction takes before its insert), so that no two of them count the same free slot.
   */
  async insertWithinLimit(tx: Tx, distribution: Partial<Distribution>, max: number): Promise<Distribution | null> {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('distributions:' || $1, 0))`, [distribution.projectId]);
    const [{ n }] = (await tx.query(`SELECT count(*)::int AS n FROM distributions WHERE project_id = $1 AND ${LIVE}`, [distribution.projectId])) as { n: number }[];
    if (n >= max) return null;
    const repository = tx.getRepository(Distribution);
    await repository.insert(distribution as Parameters<typeof repository.insert>[0]);
    return repository.findOneByOrFail({ id: distribution.id });
  }

  async findOne(projectId: string, id: string): Promise<Distribution | null> {
    return this.dataSource.getRepository(Distribution).findOneBy({ projectId, id, status: Not('DELETED' as never) });
  }

  async update(projectId: string, id: string, changes: Partial<Distribution>): Promise<Distribution | null> {
    const repository = this.dataSource.getRepository(Distribution);
    const result = await repository.update({ projectId, id, status: Not('DELETED' as never) }, { ...changes, updatedAt: () => 'now()' } as object);
    return result.affected ? this.findOne(projectId, id) : null;
  }

  /**
   * Marks the distribution deleted: from now on it is in no answer, counts against no limit, gets no
   * delivery and none of its deliveries is claimed (the claims want ACTIVE). The worker deletes its
   * deliveries in batches, then the row. False if there is no such (live) distribution.
   */
  async markDeleted(projectId: string, id: string): Promise<boolean> {
    const [rows] = (await this.dataSource.query(
      `UPDATE distributions SET status = 'DELETED', updated_at = now(), recover_since = NULL, recover_requested_at = NULL, resume_requested_at = NULL
       WHERE project_id = $1 AND id = $2 AND ${LIVE} RETURNING ${NOTIFY_WORK}`,
      [projectId, id],
    )) as [unknown[], number];
    return rows.length > 0;
  }

  /**
   * Records a recover: the worker makes the FAILED deliveries created since `since` PENDING in batches.
   * Two recovers not yet carried out merge into one from the earlier `since`.
   */
  async requestRecover(projectId: string, id: string, since: Date): Promise<boolean> {
    const [rows] = (await this.dataSource.query(
      `UPDATE distributions SET recover_since = least(recover_since, $3::timestamptz), recover_requested_at = clock_timestamp()
       WHERE project_id = $1 AND id = $2 AND ${LIVE} RETURNING ${NOTIFY_WORK}`,
      [projectId, id, since],
    )) as [unknown[], number];
    return rows.length > 0;
  }

  /** Records a resume: the worker makes the parked PENDING deliveries of the (ACTIVE) distribution due in batches. */
  async requestResume(id: string): Promise<void> {
    await this.dataSource.query(`UPDATE distributions SET resume_requested_at = clock_timestamp() WHERE id = $1 AND status = 'ACTIVE' RETURNING ${NOTIFY_WORK}`, [id]);
  }

  /** Newest first after the keyset position `beforeSeq`. */
  async list(projectId: string, beforeSeq: string | null, limit: number): Promise<Distribution[]> {
    const query = this.dataSource
      .getRepository(Distribution)
      .createQueryBuilder('d')
      .where(`d.project_id = :projectId AND d.${LIVE}`, { projectId })
      .orderBy('d.seq', 'DESC')
      .limit(limit);
    if (beforeSeq !== null) query.andWhere('d.seq < :beforeSeq', { beforeSeq });
    return query.getMany();
  }

  /**
   * What a worker's attempt reports (410: DISABLED; the last retry failed: PAUSED), made once: whichever of
   * several attempts reporting it comes first changes the row (and holds it to its commit), the others wait
   * for it and find nothing to change. PAUSED only pauses an ACTIVE distribution; a deleted one stays
   * deleted. True if this call changed it.
   */
  async changeStatus(tx: Tx, id: string, status: 'DISABLED' | 'PAUSED'): Promise<boolean> {
    const [rows] = (await tx.query(
      `UPDATE distributions SET status = $2, updated_at = now() WHERE id = $1 AND (CASE WHEN $2 = 'PAUSED' THEN status = 'ACTIVE' ELSE status NOT IN ('DISABLED', 'DELETED') END) RETURNING id`,
      [id, status],
    )) as [unknown[], number];
    return rows.length > 0;
  }
}
