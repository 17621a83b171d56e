import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { LoyaltyProgram } from './loyalty-program.entity.js';

@Injectable()
export class LoyaltyProgramRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * With its campaign, deleted or not: a deleted campaign's program answers with status DELETED. One
   * statement: `findOne` with a relation sends two (the ids in a DISTINCT subquery, then the rows), and
   * every program-scoped request (enrolment, the member list's 404 aside) starts here.
   */
  async findById(projectId: string, id: string): Promise<LoyaltyProgram | null> {
    return this.dataSource
      .getRepository(LoyaltyProgram)
      .createQueryBuilder('p')
      .leftJoinAndSelect('p.campaign', 'c')
      .where('p.project_id = :projectId AND p.id = :id', { projectId, id })
      .getOne();
  }

  /** Newest first, keyset after `(createdAt, id)`; programs of deleted campaigns are left out. */
  async listLive(projectId: string, limit: number, after: { createdAt: Date; id: string } | null): Promise<LoyaltyProgram[]> {
    const query = this.dataSource
      .getRepository(LoyaltyProgram)
      .createQueryBuilder('p')
      .innerJoinAndSelect('p.campaign', 'c', 'c.deleted_at IS NULL')
      .where('p.project_id = :projectId', { projectId })
      .orderBy('p.created_at', 'DESC')
      .addOrderBy('p.id', 'DESC')
      .limit(limit);
    if (after) query.andWhere('(p.created_at, p.id) < (:createdAt, :id)', { createdAt: after.createdAt, id: after.id });
    return query.getMany();
  }
}
