import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Tx } from '../../database/transaction-runner.js';
import { Distribution } from './distribution.entity.js';

@Injectable()
export class DistributionRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(distribution: Partial<Distribution>): Promise<Distribution> {
    const repository = this.dataSource.getRepository(Distribution);
    await repository.insert(distribution as Parameters<typeof repository.insert>[0]);
    return repository.findOneByOrFail({ id: distribution.id });
  }

  async findOne(projectId: string, id: string): Promise<Distribution | null> {
    return this.dataSource.getRepository(Distribution).findOneBy({ projectId, id });
  }

  async update(projectId: string, id: string, changes: Partial<Distribution>): Promise<Distribution | null> {
    const repository = this.dataSource.getRepository(Distribution);
    const result = await repository.update({ projectId, id }, { ...changes, updatedAt: () => 'now()' } as object);
    return result.affected ? repository.findOneBy({ projectId, id }) : null;
  }

  async delete(projectId: string, id: string): Promise<boolean> {
    const result = await this.dataSource.getRepository(Distribution).delete({ projectId, id });
    return (result.affected ?? 0) > 0;
  }

  /** Newest first after the keyset position `beforeSeq`. */
  async list(projectId: string, beforeSeq: string | null, limit: number): Promise<Distribution[]> {
    const query = this.dataSource.getRepository(Distribution).createQueryBuilder('d').where('d.project_id = :projectId', { projectId }).orderBy('d.seq', 'DESC').limit(limit);
    if (beforeSeq !== null) query.andWhere('d.seq < :beforeSeq', { beforeSeq });
    return query.getMany();
  }

  /** Set by delivery outcomes (410 → DISABLED, last retry failed → PAUSED), in the attempt's transaction. */
  /**
   * What a worker's attempt reports (410: DISABLED; the last retry failed: PAUSED), made once: whichever of
   * several attempts reporting it comes first changes the row (and holds it to its commit), the others wait
   * for it and find nothing to change. PAUSED only pauses an ACTIVE distribution. True if this call changed it.
   */
  async changeStatus(tx: Tx, id: string, status: 'DISABLED' | 'PAUSED'): Promise<boolean> {
    const [rows] = (await tx.query(
      `UPDATE distributions SET status = $2, updated_at = now() WHERE id = $1 AND (CASE WHEN $2 = 'PAUSED' THEN status = 'ACTIVE' ELSE status <> 'DISABLED' END) RETURNING id`,
      [id, status],
    )) as [unknown[], number];
    return rows.length > 0;
  }
}
