import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, Not } from 'typeorm';
import { DataCipher } from '../../common/crypto/data-cipher.js';
import type { Tx } from '../../database/transaction-runner.js';
import { headersCurrent, openHeaders, sealHeaders } from '../secrets/sealed-values.js';
import { Distribution } from './distribution.entity.js';

/**
 * Wakes every worker's WebhookHousekeeping at commit (a recover, a resume or a deletion to carry out); the
 * webhook sweep finds the work too if no worker listened.
 */
export const NOTIFY_WORK = `pg_notify('loyalty_webhook_work', '')`;

/** A distribution the API no longer shows: deleted, its deliveries being deleted in the background. */
const LIVE = `status <> 'DELETED'`;

/** A distribution's headers as stored (sealed or plain), for `cli.js encrypt-secrets`. */
export interface StoredHeaders {
  id: string;
  customHeaders: Record<string, string>;
}

/**
 * Distributions. Their custom header values may carry credentials: stored sealed under DATA_ENCRYPTION_KEY
 * when it is set (`sealHeaders`), and every distribution this repository answers has them opened.
 */
@Injectable()
export class DistributionRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly cipher: DataCipher,
  ) {}

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
    const row = distribution.customHeaders ? { ...distribution, customHeaders: sealHeaders(this.cipher, distribution.id as string, distribution.customHeaders) } : distribution;
    await repository.insert(row as Parameters<typeof repository.insert>[0]);
    return this.opened(await repository.findOneByOrFail({ id: distribution.id }));
  }

  async findOne(projectId: string, id: string): Promise<Distribution | null> {
    const row = await this.dataSource.getRepository(Distribution).findOneBy({ projectId, id, status: Not('DELETED' as never) });
    return row && this.opened(row);
  }

  async update(projectId: string, id: string, changes: Partial<Distribution>): Promise<Distribution | null> {
    const repository = this.dataSource.getRepository(Distribution);
    const values = changes.customHeaders ? { ...changes, customHeaders: sealHeaders(this.cipher, id, changes.customHeaders) } : changes;
    const result = await repository.update({ projectId, id, status: Not('DELETED' as never) }, { ...values, updatedAt: () => 'now()' } as object);
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
    return (await query.getMany()).map((row) => this.opened(row));
  }

  /** Up to `limit` distributions after `after` (any project, deleted ones too), their headers as stored (`cli.js encrypt-secrets`). */
  async storedHeadersPage(after: string, limit: number): Promise<StoredHeaders[]> {
    const rows = (await this.dataSource.query(`SELECT id, custom_headers FROM distributions WHERE id > $1 ORDER BY id LIMIT $2`, [after, limit])) as { id: string; custom_headers: Record<string, string> }[];
    return rows.map((row) => ({ id: row.id, customHeaders: row.custom_headers }));
  }

  /** Whether stored headers are as a write would store them now (sealed under the current key, or plain without one). */
  headersCurrent(stored: StoredHeaders): boolean {
    return headersCurrent(this.cipher, stored.customHeaders);
  }

  /** Rewrites stored headers as a write would store them now, if the row still holds them (an update meanwhile wrote its own). Whether it was rewritten. */
  async resealHeaders(stored: StoredHeaders): Promise<boolean> {
    const headers = sealHeaders(this.cipher, stored.id, openHeaders(this.cipher, stored.id, stored.customHeaders));
    const [, changed] = (await this.dataSource.query(`UPDATE distributions SET custom_headers = $3 WHERE id = $1 AND custom_headers = $2::jsonb`, [
      stored.id,
      JSON.stringify(stored.customHeaders),
      JSON.stringify(headers),
    ])) as [unknown, number];
    return changed > 0;
  }

  private opened(row: Distribution): Distribution {
    return { ...row, customHeaders: openHeaders(this.cipher, row.id, row.customHeaders) };
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
