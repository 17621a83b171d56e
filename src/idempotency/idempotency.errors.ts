import { ApiError } from '../common/errors/api-error.js';

/** The header's name, as clients send it and the documents name it. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** 1 to 255 printable ASCII characters (space to tilde): a UUID, or any id the client makes. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

export function invalidIdempotencyKey(key: string): ApiError {
  const got = key.length === 0 ? 'an empty value' : key.length > 255 ? `${key.length} characters` : 'a character outside them';
  return ApiError.invalidPayload(`${IDEMPOTENCY_KEY_HEADER} header must be 1 to 255 printable ASCII characters (got ${got})`);
}

/** The same key with another request: the client reused a key, or changed the request before its retry. */
export function idempotencyKeyReused(key: string): ApiError {
  return new ApiError(422, 'idempotency_key_reused', 'Idempotency key reused', {
    details: `${IDEMPOTENCY_KEY_HEADER} '${key}' was already used with another request (other path parameters or body); send a new key for a new request`,
  });
}

/** The first request with the key has not finished: its answer is not known yet. */
export function idempotencyRequestInProgress(key: string): ApiError {
  return new ApiError(409, 'idempotency_request_in_progress', 'Idempotency request in progress', {
    details: `A request with ${IDEMPOTENCY_KEY_HEADER} '${key}' is still in progress; retry once it has finished to get its answer`,
  });
}
