import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { isISO8601, ValidateBy, type ValidationArguments } from 'class-validator';
import { EXAMPLE_IDS } from '../../common/openapi/examples.js';
import { LimitQueryDto } from '../../common/pagination/limit-query.dto.js';
import { isDateTime, Optional } from '../../common/validation/decorators.js';
import { ASYNC_ACTION_STATUSES, ASYNC_ACTION_TYPES, type AsyncAction, type AsyncActionStatus, type AsyncActionType } from '../async-action.entity.js';

export const ASYNC_ACTION_ID = /^aa_[a-f0-9]+$/;

/** The answer of an endpoint whose work is an async action (Voucherify's LoyaltiesDeleteResponseBody). */
export class AsyncActionIdDto {
  @ApiProperty({ pattern: ASYNC_ACTION_ID.source, example: EXAMPLE_IDS.asyncAction, description: 'Read the action with `GET /v1/async-actions/{asyncActionId}`.' })
  async_action_id: string;
}

export class AsyncActionResultDto {
  @ApiProperty({ example: 'Deleted 2 vouchers.', description: 'What the action did, in a sentence.' })
  message: string;

  @ApiProperty({ type: 'integer', example: 2, description: 'How many resources it handled (for CAMPAIGN.VOUCHERS_DELETE: the campaign\'s loyalty cards, deleted or moved to the bin).' })
  done_count: number;
}

/** An action as the list shows it: without its result, as Voucherify's list does. */
export class AsyncActionSummaryDto {
  @ApiProperty({ pattern: ASYNC_ACTION_ID.source, example: EXAMPLE_IDS.asyncAction })
  id: string;

  @ApiProperty({ enum: ASYNC_ACTION_TYPES, description: 'CAMPAIGN.VOUCHERS_DELETE: `DELETE /v1/loyalties/{campaignId}` (the campaign and its cards, to the bin or for good).' })
  type: AsyncActionType;

  @ApiProperty({
    enum: ASYNC_ACTION_STATUSES,
    description:
      'Voucherify\'s statuses. A deletion to the bin is done before the answer (DONE at once); a forced deletion (`force=true`) is IN_PROGRESS until the worker has deleted every card, then DONE. ENQUEUED and FAILED are not used: the worker retries a failed batch until it goes through.',
  })
  status: AsyncActionStatus;

  @ApiProperty({ format: 'date-time', description: 'When the action was asked for.' })
  created_at: string;

  @ApiProperty({ format: 'date-time', description: 'When its status last changed: for a DONE action, when it was done.' })
  updated_at: string;

  @ApiProperty({ type: String, nullable: true, example: EXAMPLE_IDS.request, description: 'The request that asked for the action (its `X-Request-Id`).' })
  request_id: string | null;

  @ApiProperty({ type: 'integer', minimum: 0, maximum: 100, example: 100, description: 'Percent done: for a forced deletion, the share of the campaign\'s cards deleted so far (100 once DONE).' })
  progress: number;

  @ApiProperty({ enum: ['async_action'] })
  object: 'async_action';
}

export class AsyncActionDto extends AsyncActionSummaryDto {
  @ApiProperty({ type: AsyncActionResultDto, nullable: true, description: 'What the action did; null until it is DONE.' })
  result: AsyncActionResultDto | null;

  @ApiProperty({ type: 'integer', example: 12, description: 'Milliseconds from `created_at` to `updated_at` (for an IN_PROGRESS action, to when it was recorded).' })
  processing_time: number;
}

export class AsyncActionListDto {
  @ApiProperty({ enum: ['list'] })
  object: 'list';

  @ApiProperty({ enum: ['async_actions'] })
  data_ref: 'async_actions';

  @ApiProperty({ type: [AsyncActionSummaryDto], description: 'Newest first.' })
  async_actions: AsyncActionSummaryDto[];

  @ApiProperty({ description: 'More actions were made before the last one shown: ask again with its `created_at` as `end_date`.' })
  has_more: boolean;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** `end_date`: an ISO 8601 date-time with a zone, or a date (its 00:00 UTC), as Voucherify takes it. */
export function parseEndDate(value: string): Date {
  return new Date(DATE.test(value) ? `${value}T00:00:00Z` : value);
}

export class ListAsyncActionsQueryDto extends LimitQueryDto {
  @ApiPropertyOptional({
    description: 'Only actions made before this moment: an ISO 8601 date-time with a time zone, or a date (00:00 UTC that day). To page, pass the `created_at` of the last action shown.',
    example: '2026-11-23T15:13:36.577Z',
  })
  @Optional()
  @ValidateBy({
    name: 'isEndDate',
    validator: {
      validate: (value: unknown) => isDateTime(value) || (typeof value === 'string' && DATE.test(value) && isISO8601(value, { strict: true })),
      defaultMessage: (args?: ValidationArguments) => `${args?.property} must be an ISO 8601 date-time with a time zone, or a date`,
    },
  })
  end_date?: string;
}

export function toAsyncActionSummaryDto(action: AsyncAction): AsyncActionSummaryDto {
  return {
    id: action.id,
    type: action.type,
    status: action.status,
    created_at: action.createdAt.toISOString(),
    updated_at: action.updatedAt.toISOString(),
    request_id: action.requestId,
    progress: action.progress,
    object: 'async_action',
  };
}

/** Voucherify's key order: id, type, status, result, created_at, updated_at, request_id, progress, processing_time, object. */
export function toAsyncActionDto(action: AsyncAction): AsyncActionDto {
  return {
    id: action.id,
    type: action.type,
    status: action.status,
    result: action.result,
    created_at: action.createdAt.toISOString(),
    updated_at: action.updatedAt.toISOString(),
    request_id: action.requestId,
    progress: action.progress,
    processing_time: action.updatedAt.getTime() - action.createdAt.getTime(),
    object: 'async_action',
  };
}
