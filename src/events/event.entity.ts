import { Column, CreateDateColumn, Entity, Generated, Index, PrimaryColumn } from 'typeorm';

/** Who caused an event: a request with an application key, or the service itself (the worker). */
export interface EventSource {
  channel: 'API' | 'INTERNAL';
  api_key?: { app_id: string };
}

/**
 * The outbox and the project's event log (`evcus_`): a row is written in the same database transaction
 * as the change it reports, so an event exists if and only if its change was committed.
 *
 * `seq` is the insertion order (an identity column, unique by construction). The partial index on `seq WHERE relayed_at IS NULL` holds only the rows
 * not yet handed to webhook delivery, so a relay reads its next batch from an index range however long
 * the log grows. The other two serve the newest-first list, with and without a type filter.
 */
@Entity({ name: 'events' })
@Index('idx_events_unrelayed', ['seq'], { where: '"relayed_at" IS NULL' })
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

  /** Set when the webhook relay has turned the event into deliveries; null until then. */
  @Column({ name: 'relayed_at', type: 'timestamptz', nullable: true })
  relayedAt: Date | null;
}
