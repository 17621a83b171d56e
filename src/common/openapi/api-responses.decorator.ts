import { applyDecorators, type Type } from '@nestjs/common';
import { ApiOkResponse, ApiResponse } from '@nestjs/swagger';
import { ErrorResponseDto } from './error-response.dto.js';
import { EXAMPLE_IDS } from './examples.js';

const ERROR_EXAMPLES: Record<number, { description: string; example: object }> = {
  400: {
    description:
      'Invalid body (`invalid_payload`) or query/path parameters (`invalid_query_params`), `details` naming the property: ' +
      'this includes text PostgreSQL cannot store (NUL, lone UTF-16 surrogates), malformed percent-encoding, and bodies or query ' +
      'strings outside the size and nesting limits (docs/errors.md); a request Node cannot parse as HTTP (`invalid_request`); ' +
      'a cursor that was tampered with, expired or made for another query (`invalid_or_expired_cursor`); a protected campaign (`resource_protected`); ' +
      'no loyalty card to give (`no_voucher_suitable_for_publication`) or a card code already given (`voucher_already_published`); ' +
      'a pending points entry that is no longer PENDING (`invalid_pending_points_state`) or an adjustment that would leave it 0 or less (`invalid_amount`).',
    example: { code: 400, key: 'invalid_payload', message: 'Invalid payload', details: 'note must be a string', request_id: EXAMPLE_IDS.request },
  },
  401: {
    description: 'Missing or wrong X-App-Id / X-App-Token.',
    example: { code: 401, key: 'unauthorized', message: 'Unauthorized' },
  },
  404: {
    description: 'The resource does not exist in the caller\'s project.',
    example: { code: 404, key: 'not_found', message: 'Resource not found', details: `Cannot find campaign with id ${EXAMPLE_IDS.campaign}`, request_id: EXAMPLE_IDS.request, resource_id: EXAMPLE_IDS.campaign, resource_type: 'campaign' },
  },
  409: {
    description: 'A resource with the same unique value exists (`duplicate_found`), or the customer already is a member of the program (`member_already_exists`).',
    example: { code: 409, key: 'duplicate_found', message: 'Duplicated resource found', details: 'Duplicated campaign exists with name Summer', request_id: EXAMPLE_IDS.request, resource_type: 'campaign' },
  },
  423: {
    description: 'The program is not ACTIVE (its campaign is switched off, not started, expired or deleted): `non_active_program`.',
    example: { code: 423, key: 'non_active_program', message: 'Invalid program status', details: 'Cannot create member when program status is not ACTIVE', request_id: EXAMPLE_IDS.request, resource_id: EXAMPLE_IDS.program, resource_type: 'program' },
  },
  413: {
    description: 'Body larger than 1 MiB.',
    example: { code: 413, key: 'payload_too_large', message: 'Payload too large', details: 'Request body exceeds the limit of 1048576 bytes', request_id: EXAMPLE_IDS.request },
  },
  415: {
    description: 'A body in a charset other than UTF-8, or with a Content-Encoding other than identity, gzip, deflate or br (`unsupported_media_type`).',
    example: { code: 415, key: 'unsupported_media_type', message: 'Unsupported media type', details: 'JSON bodies must be UTF-8; got charset utf-16le', request_id: EXAMPLE_IDS.request },
  },
  431: {
    description: 'Request line and headers over 16 KiB (`request_header_fields_too_large`), answered by the HTTP parser before routing.',
    example: { code: 431, key: 'request_header_fields_too_large', message: 'Request header fields too large', details: 'The request line and headers together exceed 16 KiB', request_id: EXAMPLE_IDS.request },
  },
  500: {
    description: 'Unexpected error; logged with the request id.',
    example: { code: 500, key: 'internal_server_error', message: 'Internal server error', request_id: EXAMPLE_IDS.request },
  },
  503: {
    description: 'PostgreSQL or Redis is unreachable (`service_unavailable`, Retry-After: 5), or PostgreSQL is up but busy: no free connection, a batch not started in time, a row lock or a statement past its time limit, a lock conflict that its retries did not settle, no connection slot left on the server (`database_busy`, Retry-After: 1; `details` names which). Nothing was changed either way; retry after the Retry-After seconds.',
    example: { code: 503, key: 'service_unavailable', message: 'Service unavailable', details: 'Redis is unreachable; retry later', request_id: EXAMPLE_IDS.request },
  },
};

/**
 * Answers any request can get, whatever the route: the edge checks (400), the body parser (413, 415), Node's
 * HTTP parser (431) and a bug (500).
 */
export const EDGE_STATUSES = [400, 413, 415, 431, 500] as const;

/** An error answer an endpoint documents in its own words, instead of the generic ERROR_EXAMPLES entry. */
export interface OwnErrorResponse {
  status: number;
  description: string;
  example: {
    code: number;
    key: string;
    message: string;
    details?: string;
    request_id?: string;
    resource_id?: string;
    resource_type?: string;
    related_object_ids?: string[];
    related_object_type?: string;
    related_object_total?: number;
  };
}

/**
 * Documents the error answers of an endpoint: its own, plus EDGE_STATUSES. A status given as an
 * OwnErrorResponse replaces the generic description and example, for endpoints whose likely error is not
 * the generic one (Swagger UI shows one example per status, so it should be the one a caller meets).
 */
export function ApiErrorResponses(...statuses: (number | OwnErrorResponse)[]): MethodDecorator & ClassDecorator {
  const own = new Map(statuses.filter((s): s is OwnErrorResponse => typeof s === 'object').map((s) => [s.status, s]));
  const all = [...new Set([...statuses.map((s) => (typeof s === 'number' ? s : s.status)), ...EDGE_STATUSES])].sort((a, b) => a - b);
  return applyDecorators(
    ...all.map((status) => {
      const doc = own.get(status) ?? ERROR_EXAMPLES[status];
      return ApiResponse({ status, description: doc?.description ?? 'Error', type: ErrorResponseDto, example: doc?.example });
    }),
  );
}

/** The 400s any route with a body can meet besides its own (the rest of the generic 400 description). */
const EDGE_400 =
  'As on every route, the edge checks (docs/errors.md): text PostgreSQL cannot store, malformed percent-encoding, a body outside ' +
  'the size and nesting limits, a request Node cannot parse as HTTP (`invalid_request`).';

/** POST /v2/loyalties/programs/{programId}/members: the 400 a caller meets is about the customer to enrol. */
export const ENROLMENT_400_V2: OwnErrorResponse = {
  status: 400,
  description:
    'The customer to enrol is missing or invalid (`invalid_payload`, `details` naming the property: no `customer_identification`, ' +
    'a `customer_id` that is not a `cust_…` id, an empty `customer_source_id`), or the campaign has no loyalty card left to give ' +
    `(\`no_voucher_suitable_for_publication\`). ${EDGE_400}`,
  example: {
    code: 400,
    key: 'invalid_payload',
    message: 'Invalid payload',
    details: 'customer_identification.customer_id must match ^cust_[a-zA-Z0-9]+$',
    request_id: EXAMPLE_IDS.request,
  },
};

/** POST /v1/loyalties/{campaignId}/members: the same, with v1's `customer` and `voucher`. */
export const ENROLMENT_400_V1: OwnErrorResponse = {
  status: 400,
  description:
    'The customer to enrol is missing or invalid (`invalid_payload`, `details` naming the property: no or an empty `customer`, ' +
    'neither `id` nor `source_id`, an `id` that is not a `cust_…` id), the campaign has no loyalty card left to give ' +
    '(`no_voucher_suitable_for_publication`), or the card code sent as `voucher` is already given (`voucher_already_published`). ' +
    EDGE_400,
  example: {
    code: 400,
    key: 'invalid_payload',
    message: 'Invalid payload',
    details: 'customer must have id or source_id',
    request_id: EXAMPLE_IDS.request,
  },
};

/** 200 with a body, plus the X-Request-Id response header every answer carries. */
export function ApiOkBody(type: Type<unknown>): MethodDecorator {
  return applyDecorators(
    ApiOkResponse({
      type,
      headers: { 'X-Request-Id': { description: 'Id of this request (`v-` + hex).', schema: { type: 'string' } } },
    }),
  );
}

