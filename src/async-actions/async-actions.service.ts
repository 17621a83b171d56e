import { Injectable } from '@nestjs/common';
import type { ProjectContext } from '../auth/auth.service.js';
import { ApiError } from '../common/errors/api-error.js';
import { hexId } from '../common/ids.js';
import { AppConfig } from '../config/app-config.js';
import { untilShortBatch } from '../database/batches.js';
import type { Tx } from '../database/transaction-runner.js';
import type { AsyncAction, AsyncActionResult, AsyncActionType } from './async-action.entity.js';
import { AsyncActionRepository } from './async-action.repository.js';
import {
  type AsyncActionDto,
  type AsyncActionListDto,
  type ListAsyncActionsQueryDto,
  parseEndDate,
  toAsyncActionDto,
  toAsyncActionSummaryDto,
} from './dto/async-action.dto.js';

/** Work asked for: the action's type, and when it was asked for (its `created_at`). */
export interface StartedWork {
  type: AsyncActionType;
  startedAt: Date;
}

/** Work done by the caller, to record as a DONE action. */
export interface DoneWork extends StartedWork {
  result: AsyncActionResult;
}

/**
 * Async actions: the record Voucherify answers with for work it does in bulk. Features whose endpoint answers
 * `{"async_action_id"}` record theirs through `recordDone`, in the transaction of the work itself, or, for
 * work the worker carries out, `recordStarted` in the transaction that hands it over, then `finish`.
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
    return this.record(project, tx, work, { status: 'DONE', progress: 100, result: work.result });
  }

  /**
   * Records work that goes on in the background (the worker's), in the transaction `tx` that hands it over,
   * as an IN_PROGRESS action at 0 %; the worker reports its progress and finishes it (`reportProgress`,
   * `finish`) in the transactions of its work. Returns the action's id.
   */
  async recordStarted(project: ProjectContext, tx: Tx, work: StartedWork): Promise<string> {
    return this.record(project, tx, work, { status: 'IN_PROGRESS', progress: 0, result: null });
  }

  /** The percent done of an IN_PROGRESS action (0-99), in the transaction of the work done so far. */
  reportProgress(tx: Tx, id: string, progress: number): Promise<void> {
    return this.actions.reportProgress(tx, id, progress);
  }

  /** An IN_PROGRESS action is DONE with its result, in the transaction of its last work. */
  finish(tx: Tx, id: string, result: AsyncActionResult): Promise<void> {
    return this.actions.finish(tx, id, result);
  }

  private async record(project: ProjectContext, tx: Tx, work: StartedWork, state: Pick<AsyncAction, 'status' | 'progress' | 'result'>): Promise<string> {
    const id = hexId('aa_');
    const now = new Date();
    await this.actions.insert(tx, {
      id,
      projectId: project.id,
      type: work.type,
      ...state,
      requestId: project.requestId ?? null,
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
