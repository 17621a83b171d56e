import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { EventRecord } from './event.entity.js';

/** An event as lists read it; `seq` is the keyset position. */
export type EventRow = Pick<EventRecord, 'id' | 'seq' | 'type' | 'entityId' | 'groupId' | 'eventSource' | 'data' | 'createdAt'>;

@Injectable()
export class EventRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async findById(projectId: string, id: string): Promise<EventRecord | null> {
    return this.dataSource.getRepository(EventRecord).findOneBy({ projectId, id });
  }

  /** Newest first, after the keyset position `beforeSeq`; one index range per query. */
  async list(projectId: string, type: string | undefined, beforeSeq: string | null, limit: number): Promise<EventRecord[]> {
    const query = this.dataSource
      .getRepository(EventRecord)
      .createQueryBuilder('e')
      .where('e.project_id = :projectId', { projectId })
      .orderBy('e.seq', 'DESC')
      .limit(limit);
    if (type !== undefined) query.andWhere('e.type = :type', { type });
    if (beforeSeq !== null) query.andWhere('e.seq < :beforeSeq', { beforeSeq });
    return query.getMany();
  }
}
