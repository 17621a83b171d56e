import { applyDecorators, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiHeader, ApiResponse } from '@nestjs/swagger';
import type { Request } from 'express';
import type { OwnErrorResponse } from '../common/openapi/api-responses.decorator.js';
import { ErrorResponseDto } from '../common/openapi/error-response.dto.js';
import { EXAMPLE_IDS } from '../common/openapi/examples.js';
import { IDEMPOTENCY_KEY_HEADER } from './idempotency.errors.js';

/**
 * The Idempotency-Key header of the request, as IdempotencyService.run takes it (undefined when absent). A
 * header sent twice arrives joined by ", " (Node), so it is one key, and not one of the two.
 */
export const IdempotencyKeyHeader = createParamDecorator((_data: unknown, ctx: ExecutionContext): string | undefined => {
  const value = ctx.switchToHttp().getRequest<Request>().headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
});

const EXAMPLE_KEY = '5f0c2a8e-4b1d-4e3a-9c7f-1d2e3f4a5b6c';

/** The 409 of a key whose first request still runs; an endpoint with a 409 of its own names both in one OwnErrorResponse. */
export const IDEMPOTENCY_IN_PROGRESS_409: OwnErrorResponse = {
  status: 409,
  description: `A request with the same \`${IDEMPOTENCY_KEY_HEADER}\` is still in progress (\`idempotency_request_in_progress\`): retry once it has finished to get its answer.`,
  example: {
    code: 409,
    key: 'idempotency_request_in_progress',
    message: 'Idempotency request in progress',
    details: `A request with ${IDEMPOTENCY_KEY_HEADER} '${EXAMPLE_KEY}' is still in progress; retry once it has finished to get its answer`,
    request_id: EXAMPLE_IDS.request,
  },
};

export const IDEMPOTENCY_KEY_REUSED_422: OwnErrorResponse = {
  status: 422,
  description: `The \`${IDEMPOTENCY_KEY_HEADER}\` was already used with another request (other path parameters or body) within \`IDEMPOTENCY_TTL_MS\` (24 hours by default): \`idempotency_key_reused\`.`,
  example: {
    code: 422,
    key: 'idempotency_key_reused',
    message: 'Idempotency key reused',
    details: `${IDEMPOTENCY_KEY_HEADER} '${EXAMPLE_KEY}' was already used with another request (other path parameters or body); send a new key for a new request`,
    request_id: EXAMPLE_IDS.request,
  },
};

/**
 * Documents the Idempotency-Key header of an endpoint that runs through IdempotencyService, with its 409 and
 * 422. Put it above the endpoint's ApiErrorResponses (decorators apply bottom up, and the later answer of a
 * status wins); an endpoint with another 409 lists IDEMPOTENCY_IN_PROGRESS_409's words in its own instead.
 */
export function ApiIdempotencyKey(): MethodDecorator {
  return applyDecorators(
    ApiHeader({
      name: IDEMPOTENCY_KEY_HEADER,
      required: false,
      description:
        'Makes the request safe to retry (docs/errors.md, "Idempotency-Key"): the first request with a key runs, and a retry with the ' +
        'same key and the same request within `IDEMPOTENCY_TTL_MS` (24 hours by default) gets its answer again (the same status and body: a success, or a 4xx error ' +
        'other than 409 and 429) without running again. The same key with another request: 422 `idempotency_key_reused`; while the ' +
        'first still runs: 409 `idempotency_request_in_progress`. A request that failed otherwise (5xx, 409, 429) stored nothing, so ' +
        'its retry runs. Keys are per project and route; 1 to 255 printable ASCII characters (a UUID, say), otherwise 400 `invalid_payload`.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]{1,255}$', example: EXAMPLE_KEY },
    }),
    ...[IDEMPOTENCY_IN_PROGRESS_409, IDEMPOTENCY_KEY_REUSED_422].map(({ status, description, example }) => ApiResponse({ status, description, type: ErrorResponseDto, example })),
  );
}
