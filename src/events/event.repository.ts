import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Tx } from '../database/transaction-runner.js';
import { EventRecord, type EventSource } from './event.entity.js';

export interface NewEventRow {
  id: string;
  projectId: string;
  type: string;
  entityId: string;
  groupId: string;
  eventSource: EventSource;
  data: Record<string, unknown>;
}

/** An event as lists read it; `seq` is the keyset position. */
export type EventRow = Pick<EventRecord, 'id' | 'seq' | 'type' | 'entityId' | 'groupId' | 'eventSource' | 'data' | 'createdAt'>;

@Injectable()
export class EventRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Inside the caller's transaction: the event commits with its change, or not at all. One statement. */
  async insert(tx: Tx, rows: NewEventRow[]): Promise<void> {
    if (!rows.length) return;
    await tx.query(
      `INSERT INTO events (id, project_id, type, entity_id, group_id, event_source, data)
       SELECT e.id, e.project_id, e.type, e.entity_id, e.group_id, e.event_source, e.data
       FROM jsonb_to_recordset($1::jsonb) AS e(id text, project_id text, type text, entity_id text, group_id text, event_source jsonb, data jsonb)`,
      [JSON.stringify(rows.map((row) => ({ id: row.id, project_id: row.projectId, type: row.type, entity_id: row.entityId, group_id: row.groupId, event_source: row.eventSource, data: row.data })))],
    );
  }

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
