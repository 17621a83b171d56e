import { applyDecorators, type Type } from '@nestjs/common';
import { ApiOkResponse, ApiResponse } from '@nestjs/swagger';
import { ErrorResponseDto } from './error-response.dto.js';

const ERROR_EXAMPLES: Record<number, { description: string; example: object }> = {
  400: {
    description:
      'Invalid body (`invalid_payload`) or query/path parameters (`invalid_query_params`), `details` naming the property: ' +
      'this includes text PostgreSQL cannot store (NUL, lone UTF-16 surrogates), malformed percent-encoding, and bodies or query ' +
      'strings outside the size and nesting limits (docs/errors.md); a request Node cannot parse as HTTP (`invalid_request`); ' +
      'a cursor that was tampered with, expired or made for another query (`invalid_or_expired_cursor`); a protected campaign (`resource_protected`); ' +
      'no loyalty card to give (`no_voucher_suitable_for_publication`) or a card code already given (`voucher_already_published`); ' +
      'a pending points entry that is no longer PENDING (`invalid_pending_points_state`) or an adjustment that would leave it 0 or less (`invalid_amount`).',
    example: { code: 400, key: 'invalid_payload', message: 'Invalid payload', details: 'note must be a string', request_id: 'v-0c12951ec58e67577e' },
  },
  401: {
    description: 'Missing or wrong X-App-Id / X-App-Token.',
    example: { code: 401, key: 'unauthorized', message: 'Unauthorized' },
  },
  404: {
    description: 'The resource does not exist in the caller\'s project.',
    example: { code: 404, key: 'not_found', message: 'Resource not found', details: 'Cannot find diagnostic_ping with id ping_0', request_id: 'v-0c12951ec58e67577e', resource_id: 'ping_0', resource_type: 'diagnostic_ping' },
  },
  409: {
    description: 'A resource with the same unique value exists (`duplicate_found`), or the customer already is a member of the program (`member_already_exists`).',
    example: { code: 409, key: 'duplicate_found', message: 'Duplicated resource found', details: 'Duplicated campaign exists with name Summer', request_id: 'v-0c12951ec58e67577e', resource_type: 'campaign' },
  },
  423: {
    description: 'The program is not ACTIVE (its campaign is switched off, not started, expired or deleted): `non_active_program`.',
    example: { code: 423, key: 'non_active_program', message: 'Invalid program status', details: 'Cannot create member when program status is not ACTIVE', request_id: 'v-0c12951ec58e67577e', resource_id: 'lprg_128f58429f4c4bf7b2', resource_type: 'program' },
  },
  413: {
    description: 'Body larger than 1 MiB.',
    example: { code: 413, key: 'payload_too_large', message: 'Payload too large', details: 'Request body exceeds the limit of 1048576 bytes', request_id: 'v-0c12951ec58e67577e' },
  },
  415: {
    description: 'A body in a charset other than UTF-8, or with a Content-Encoding other than identity, gzip, deflate or br (`unsupported_media_type`).',
    example: { code: 415, key: 'unsupported_media_type', message: 'Unsupported media type', details: 'JSON bodies must be UTF-8; got charset utf-16le', request_id: 'v-0c12951ec58e67577e' },
  },
  431: {
    description: 'Request line and headers over 16 KiB (`request_header_fields_too_large`), answered by the HTTP parser before routing.',
    example: { code: 431, key: 'request_header_fields_too_large', message: 'Request header fields too large', details: 'The request line and headers together exceed 16 KiB', request_id: 'v-0c12951ec58e67577e' },
  },
  500: {
    description: 'Unexpected error; logged with the request id.',
    example: { code: 500, key: 'internal_server_error', message: 'Internal server error', request_id: 'v-0c12951ec58e67577e' },
  },
  503: {
    description: 'PostgreSQL or Redis is unreachable; retry after the Retry-After seconds.',
    example: { code: 503, key: 'service_unavailable', message: 'Service unavailable', details: 'Redis is unreachable; retry later', request_id: 'v-0c12951ec58e67577e' },
  },
};

/**
 * Answers any request can get, whatever the route: the edge checks (400), the body parser (413, 415), Node's
 * HTTP parser (431) and a bug (500).
 */
export const EDGE_STATUSES = [400, 413, 415, 431, 500] as const;

/** Documents the error answers of an endpoint: its own, plus EDGE_STATUSES. */
export function ApiErrorResponses(...statuses: number[]): MethodDecorator & ClassDecorator {
  const all = [...new Set([...statuses, ...EDGE_STATUSES])].sort((a, b) => a - b);
  return applyDecorators(
    ...all.map((status) =>
      ApiResponse({
        status,
        description: ERROR_EXAMPLES[status]?.description ?? 'Error',
        type: ErrorResponseDto,
        example: ERROR_EXAMPLES[status]?.example,
      }),
    ),
  );
}

/** 200 with a body, plus the X-Request-Id response header every answer carries. */
export function ApiOkBody(type: Type<unknown>): MethodDecorator {
  return applyDecorators(
    ApiOkResponse({
      type,
      headers: { 'X-Request-Id': { description: 'Id of this request (`v-` + hex).', schema: { type: 'string' } } },
    }),
  );
}

