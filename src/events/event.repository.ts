import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { EventRecord } from './event.entity.js';

/**
 * The INSERT of event rows whose other columns a SELECT yields, in this order: `project_id, type, entity_id,
 * group_id, event_source, data`. Features that build a batch of events in SQL embed it in their own
 * statement (an activation batch builds its events in the database, next to the change they report),
 * while the events domain keeps its table and its id format here. Ids are `evcus_` + 18 hex.
 *
 * Every event goes through here, so here its size is bounded: `maxBytes` names the statement's parameter
 * that holds EVENT_PAYLOAD_MAX_BYTES (the caller passes `config.events.payloadMaxBytes`), and a `data` longer
 * than that is cut by `loyalty_event_fit` (docs/webhooks.md, "Size of an event"). A parameter, not a session
 * setting: behind a pooler in transaction mode a statement may run on any server connection, whose settings
 * are not ours. The size is checked in the statement, so an event within the bound (all but a few) costs no
 * function call; `OFFSET 0` keeps PostgreSQL from pulling the SELECT up, which would build `data` twice.
 */
export function eventsInsertSql(select: string, maxBytes: `$${number}`): string {
  return `INSERT INTO events (id, project_id, type, entity_id, group_id, event_source, data)
    SELECT 'evcus_' || left(md5(random()::text || clock_timestamp()::text || s.entity_id), 18), s.project_id, s.type, s.entity_id, s.group_id, s.event_source,
           CASE WHEN octet_length(s.data::text) <= ${maxBytes}::int THEN s.data ELSE loyalty_event_fit(s.data, ${maxBytes}::int) END
    FROM (${select} OFFSET 0) s`;
}

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
