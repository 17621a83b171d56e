import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * The types this service records, under Voucherify's names (its enum has many more: imports, bulk updates,
 * which this service does not do). CAMPAIGN.VOUCHERS_DELETE is the deletion of a campaign and its cards.
 */
export const ASYNC_ACTION_TYPES = ['CAMPAIGN.VOUCHERS_DELETE'] as const;
export type AsyncActionType = (typeof ASYNC_ACTION_TYPES)[number];

/**
 * Voucherify's statuses. An action is recorded DONE with work done in its request, or IN_PROGRESS with work
 * the worker carries out (a forced campaign deletion), then DONE in the transaction of its last batch.
 * ENQUEUED and FAILED are never stored: the work is handed over in the transaction that records the action,
 * and the worker retries a failed batch until it goes through.
 */
export const ASYNC_ACTION_STATUSES = ['ENQUEUED', 'IN_PROGRESS', 'DONE', 'FAILED'] as const;
export type AsyncActionStatus = (typeof ASYNC_ACTION_STATUSES)[number];

/** What an action did, in Voucherify's words: a sentence and the number of resources it handled. */
export interface AsyncActionResult {
  message: string;
  done_count: number;
}

/**
 * An asynchronous action (`aa_` + 18 hex) of a project: the record of work an endpoint answers with an id
 * instead of a resource (`DELETE /v1/loyalties/{campaignId}` → `{"async_action_id": …}`), read back with
 * `GET /v1/async-actions/{id}`. Written in the transaction of the work it records (or hands over to the
 * worker), so an id a client was given always points at an action, and work that failed leaves none. The
 * worker's sweep deletes actions older than ASYNC_ACTION_TTL_MS (index on `created_at`); the list reads
 * (project, created_at, id).
 */
@Entity({ name: 'async_actions' })
@Index('idx_async_actions_project_created', ['projectId', 'createdAt', 'id'])
@Index('idx_async_actions_created_at', ['createdAt'])
export class AsyncAction {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'pk_async_actions' })
  id: string;

  @Column({ name: 'project_id', type: 'text' })
  projectId: string;

  @Column({ type: 'text' })
  type: AsyncActionType;

  @Column({ type: 'text' })
  status: AsyncActionStatus;

  /** The request that asked for the action (`v-…`), as its `X-Request-Id` and its events' `group_id`. */
  @Column({ name: 'request_id', type: 'text', nullable: true })
  requestId: string | null;

  /** 0-100. */
  @Column({ type: 'integer' })
  progress: number;

  @Column({ type: 'jsonb', nullable: true })
  result: AsyncActionResult | null;

  /** When the action was asked for. */
  @Column({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  /** When its status last changed (for a DONE action: when it was done). */
  @Column({ name: 'updated_at', type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
