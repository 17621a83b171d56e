import { Injectable } from '@nestjs/common';
import type { ProjectContext } from '../auth/auth.service.js';
import { ApiError } from '../common/errors/api-error.js';
import { hexId } from '../common/ids.js';
import { AppConfig } from '../config/app-config.js';
import { untilShortBatch } from '../database/batches.js';
import type { Tx } from '../database/transaction-runner.js';
import type { AsyncActionResult, AsyncActionType } from './async-action.entity.js';
import { AsyncActionRepository } from './async-action.repository.js';
import {
  type AsyncActionDto,
  type AsyncActionListDto,
  type ListAsyncActionsQueryDto,
  parseEndDate,
  toAsyncActionDto,
  toAsyncActionSummaryDto,
} from './dto/async-action.dto.js';

/** Work done by the caller, to record as a DONE action. */
export interface DoneWork {
  type: AsyncActionType;
  /** When the work was asked for (the action's `created_at`); it is done now. */
  startedAt: Date;
  result: AsyncActionResult;
}

/**
 * Async actions: the record Voucherify answers with for work it does in bulk. Features whose endpoint answers
 * `{"async_action_id"}` record theirs through `recordDone`, in the transaction of the work itself.
 */
@Injectable()
export class AsyncActionsService {
  constructor(
    private readonly actions: AsyncActionRepository,
    private readonly config: AppConfig,
  ) {}

  /**
   * Records work the caller has just done, in its transaction `tx`, as a DONE action of the project, and
   * returns the action's id. The work and its record commit together: the id never points at nothing, and
   * work that failed (the transaction rolled back) leaves no action.
   */
  async recordDone(project: ProjectContext, tx: Tx, work: DoneWork): Promise<string> {
    const id = hexId('aa_');
    const now = new Date();
    await this.actions.insert(tx, {
      id,
      projectId: project.id,
      type: work.type,
      status: 'DONE',
      requestId: project.requestId ?? null,
      progress: 100,
      result: work.result,
      createdAt: work.startedAt,
      // Never before created_at, whatever the clock did meanwhile: processing_time is their difference.
      updatedAt: now < work.startedAt ? work.startedAt : now,
    });
    return id;
  }

  async get(project: ProjectContext, id: string): Promise<AsyncActionDto> {
    const action = await this.actions.findInProject(project.id, id);
    if (!action) throw ApiError.notFound('async_action', id);
    return toAsyncActionDto(action);
  }

  async list(project: ProjectContext, query: ListAsyncActionsQueryDto): Promise<AsyncActionListDto> {
    const limit = query.limit ?? 10;
    const rows = await this.actions.list(project.id, query.end_date === undefined ? null : parseEndDate(query.end_date), limit + 1);
    return { object: 'list', data_ref: 'async_actions', async_actions: rows.slice(0, limit).map(toAsyncActionSummaryDto), has_more: rows.length > limit };
  }

  /** The sweep: deletes actions older than ASYNC_ACTION_TTL_MS, `batch` rows per statement, until none is left; how many. */
  deleteExpired(batch: number): Promise<number> {
    return untilShortBatch(batch, (limit) => this.actions.deleteExpired(this.config.asyncActions.ttlMs, limit));
  }
}
