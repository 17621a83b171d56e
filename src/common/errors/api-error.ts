/** What a 503 `database_busy` says it waited for (docs/errors.md): one bound each, so the answer names the one to look at. */
export const BUSY_DETAILS = {
  pool: 'no connection of the pool became free in time',
  batch: 'its batch did not start in time',
  lock: 'a row it needs stayed locked by another request too long',
  statement: 'a statement ran past its time limit',
  conflict: 'it lost a lock conflict with concurrent requests on every attempt',
  server: 'the database server had no connection slot free',
} as const;

/** The error keys (docs/errors.md) that the service answers with, plus HTTP-level ones. */
export const ERROR_KEYS = [
  'invalid_payload',
  'invalid_query_params',
  'invalid_or_expired_cursor',
  'unauthorized',
  'not_found',
  'duplicate_found',
  'resource_protected',
  'resource_in_use',
  'missing_param',
  'invalid_balance',
  'member_already_exists',
  'idempotency_request_in_progress',
  'idempotency_key_reused',
  'no_voucher_suitable_for_publication',
  'voucher_already_published',
  'invalid_pending_points_state',
  'invalid_amount',
  'loyalty_card_points_exceeded',
  'missing_reward',
  'missing_order',
  'voucher_disabled',
  'voucher_not_active',
  'voucher_expired',
  'quantity_exceeded',
  'already_rolled_back',
  'invalid_redemption',
  'invalid_expiration_date',
  'invalid_request',
  'request_timeout',
  'payload_too_large',
  'unsupported_media_type',
  'request_header_fields_too_large',
  'non_active_program',
  'limit_exceeded',
  'too_many_requests',
  'internal_server_error',
  'service_unavailable',
  'database_busy',
] as const;
export type ErrorKey = (typeof ERROR_KEYS)[number];

export interface ErrorBody {
  code: number;
  key: ErrorKey;
  message: string;
  details?: string;
  request_id?: string;
  resource_id?: string;
  resource_type?: string;
  related_object_ids?: string[];
  related_object_type?: string;
  related_object_total?: number;
}

/** The resources that keep another from being deleted (`resource_in_use`): the first ids, their type and how many in all. */
export interface RelatedObjects {
  ids: string[];
  type: string;
  total: number;
}

/**
 * A failure the client is meant to see. Services throw these; the global filter renders them as the
 * body of docs/errors.md. Anything that is not an ApiError (or a known HTTP/infrastructure error) is a bug
 * and becomes a 500.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly key: ErrorKey,
    message: string,
    readonly extra: { details?: string; resourceId?: string; resourceType?: string; related?: RelatedObjects } = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  static invalidPayload(details: string): ApiError {
    return new ApiError(400, 'invalid_payload', 'Invalid payload', { details });
  }

  static invalidQueryParams(details: string): ApiError {
    return new ApiError(400, 'invalid_query_params', 'Invalid query params', { details });
  }

  static unauthorized(): ApiError {
    return new ApiError(401, 'unauthorized', 'Unauthorized');
  }

  static notFound(resourceType: string, resourceId: string): ApiError {
    return new ApiError(404, 'not_found', 'Resource not found', {
      details: `Cannot find ${resourceType} with id ${resourceId}`,
      resourceId,
      resourceType,
    });
  }

  static duplicate(resourceType: string, field: string, value: string, resourceId?: string): ApiError {
    return new ApiError(409, 'duplicate_found', 'Duplicated resource found', {
      details: `Duplicated ${resourceType} exists with ${field} ${value}`,
      resourceType,
      resourceId,
    });
  }

  static resourceProtected(resourceType: string, resourceId: string, action: string): ApiError {
    return new ApiError(400, 'resource_protected', 'Resource is protected', {
      details: `Resource ${resourceType} with id ${resourceId} is protected and cannot be ${action}`,
      resourceId,
      resourceType,
    });
  }

  /**
   * A resource cannot be deleted while others refer to it: Voucherify's body, which names them in
   * `related_object_ids` (the first ones) with `related_object_type`, and counts them in `related_object_total`.
   */
  static resourceInUse(resourceType: string, resourceId: string, related: RelatedObjects): ApiError {
    return new ApiError(400, 'resource_in_use', 'Resource in use', {
      details: `Resource ${resourceType} with id ${resourceId} is in use by ${related.type}s with ids [${related.ids.join(', ')}${related.total > related.ids.length ? ', …' : ''}]`,
      related,
    });
  }

  /** A parameter the request needs is missing (Voucherify's `missing_param`, `Parameter 'x' is required`); `item` names an array body's item (`[1] `). */
  static missingParam(parameter: string, item = ''): ApiError {
    return new ApiError(400, 'missing_param', 'Missing required parameter', { details: `${item}Parameter '${parameter}' is required` });
  }

  /** The project already has as many `resourceType` as it may (a configured limit): 409 until one is deleted. */
  static limitExceeded(resourceType: string, limit: number, remedy: string): ApiError {
    return new ApiError(409, 'limit_exceeded', 'Limit exceeded', { details: `A project may have at most ${limit} ${resourceType}; ${remedy}`, resourceType });
  }

  static serviceUnavailable(details: string): ApiError {
    return new ApiError(503, 'service_unavailable', 'Service unavailable', { details });
  }

  /** PostgreSQL is up but could not serve this request in time (docs/errors.md), for `reason`; nothing was written. */
  static databaseBusy(reason: keyof typeof BUSY_DETAILS): ApiError {
    return new ApiError(503, 'database_busy', 'Database busy', { details: `The database is busy (${BUSY_DETAILS[reason]}) and nothing was changed; retry after the Retry-After seconds` });
  }

  toBody(requestId: string | undefined): ErrorBody {
    // 401 keeps Voucherify's exact body (Voucherify's own 401); its request id travels in the header only.
    if (this.key === 'unauthorized') return { code: 401, key: 'unauthorized', message: 'Unauthorized' };
    const body: ErrorBody = { code: this.status, key: this.key, message: this.message };
    if (this.extra.details !== undefined) body.details = this.extra.details;
    if (requestId !== undefined) body.request_id = requestId;
    if (this.extra.resourceId !== undefined) body.resource_id = this.extra.resourceId;
    if (this.extra.resourceType !== undefined) body.resource_type = this.extra.resourceType;
    if (this.extra.related !== undefined) {
      body.related_object_ids = this.extra.related.ids;
      body.related_object_type = this.extra.related.type;
      body.related_object_total = this.extra.related.total;
    }
    return body;
  }
}
