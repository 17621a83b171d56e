import { Column, CreateDateColumn, Entity, Generated, Index, PrimaryColumn } from 'typeorm';

/**
 * Who caused an event: a request with an application key (its name and id, never its token), or the service
 * itself (the worker). Events recorded before keys had names (issue 29) have only `app_id`.
 */
export interface EventSource {
  channel: 'API' | 'INTERNAL';
  api_key?: { name?: string; app_id: string };
}

/**
 * The project's event log (`evcus_`): a row is written in the same database transaction as the change it
 * reports, so an event exists if and only if its change was committed.
 *
 * `seq` is the insertion order (an identity column, unique by construction); the two indexes serve the
 * newest-first list, with and without a type filter. The webhook relay does not read this table to find
 * new events: a trigger copies each new event's key into the narrow `event_outbox` (see EventOutbox).
 */
@Entity({ name: 'events' })
@Index('idx_events_project_seq', ['projectId', 'seq'])
@Index('idx_events_project_type_seq', ['projectId', 'type', 'seq'])
export class EventRecord {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ type: 'bigint' })
  @Generated('increment')
  seq: string;

  @Column({ name: 'project_id', type: 'text' })
  projectId: string;

  @Column({ type: 'text' })
  type: string;

  /** The customer the event is about (`cust_…`), as Voucherify's customer events have it. */
  @Column({ name: 'entity_id', type: 'text' })
  entityId: string;

  /** The request that caused it (`v-…`), shared by every event that request caused. */
  @Column({ name: 'group_id', type: 'text' })
  groupId: string;

  @Column({ name: 'event_source', type: 'jsonb' })
  eventSource: EventSource;

  /**
   * `json`, not `jsonb`: the payload is an opaque document that is written once and sent as it is (its keys
   * keep the order they were written in), never queried inside; json is stored without re-encoding, which
   * halved the cost of an activation batch's event insert.
   */
  @Column({ type: 'json' })
  data: Record<string, unknown>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;
}

/**
 * The outbox of the webhook relay: one narrow row per event not yet relayed, written by the statement-level
 * trigger `events_outbox` in the event's own transaction and deleted by the relay that turns it into
 * deliveries. Marking relayed events in `events` itself rewrote each 2 KB row and its three index entries
 * (53 µs per event, a third of an activation); inserting and deleting this row costs a few µs.
 */
@Entity({ name: 'event_outbox' })
export class EventOutbox {
  @PrimaryColumn({ type: 'bigint' })
  seq: string;

  @Column({ name: 'event_id', type: 'text' })
  eventId: string;

  @Column({ name: 'project_id', type: 'text' })
  projectId: string;

  @Column({ type: 'text' })
  type: string;
}
