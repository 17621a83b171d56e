import { isUtf8 } from 'node:buffer';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { json } from 'express';
import qs from 'qs';
import { ApiError } from '../errors/api-error.js';
import { BODY_LIMIT_BYTES } from './body-limit.js';
import { inspectInput, scanJsonShape, textProblem } from './input-limits.js';

/**
 * The edge of the API: everything a request carries (path, query string, JSON body) is checked here,
 * before routing, validation or any database call, so every endpoint, present and future, is covered
 * without remembering to. What passes is bounded in size and shape and holds only text PostgreSQL can
 * store. Problems are 400 `invalid_query_params` (path, query) or `invalid_payload` (body), naming the field.
 */

/** qs settings: bounded depth and counts, and an error (not silent truncation) beyond them. */
export const QUERY_OPTIONS: qs.IParseOptions = {
  depth: 5,
  strictDepth: true,
  arrayLimit: 100,
  parameterLimit: 1_000,
  throwOnLimitExceeded: true,
  allowPrototypes: false,
};

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Parses a raw query string (without `?`) into the object controllers receive, or throws a 400. */
export function parseQuery(raw: string): Record<string, unknown> {
  if (raw === '') return {};
  const plain = plainQuery(raw);
  if (plain) {
    inspectInput(plain, 'query');
    return plain;
  }
  for (const part of raw.split('&')) {
    const separator = part.indexOf('=');
    const key = decodeComponent(separator < 0 ? part : part.slice(0, separator), null);
    decodeComponent(separator < 0 ? '' : part.slice(separator + 1), key);
    for (const segment of key.split(/[[\]]+/)) {
      if (FORBIDDEN_KEYS.has(segment)) throw ApiError.invalidQueryParams(`query parameter ${key} is not allowed`);
    }
  }
  let query: Record<string, unknown>;
  try {
    query = qs.parse(raw, QUERY_OPTIONS);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw ApiError.invalidQueryParams(`The query string is too complex: ${error.message} (at most 1000 parameters, 100 items per list, 5 levels of brackets)`);
  }
  inspectInput(query, 'query');
  return query;
}

/**
 * Most query strings are a few `name=value` pairs (`limit=10`, `cursor=…`): for those, the object qs would
 * make, without qs (its decoder, key splitting and merging run for every request). Null, and the whole
 * parse, for anything else: brackets, escapes or `+` (decoding), a name given twice (qs makes a list), an
 * empty name or part, a name of Object.prototype or a forbidden one (qs drops or the loop above refuses
 * them), more parts than qs allows (it throws).
 */
function plainQuery(raw: string): Record<string, string> | null {
  if (/[[\]%+]/.test(raw)) return null;
  const parts = raw.split('&');
  if (parts.length > (QUERY_OPTIONS.parameterLimit as number)) return null;
  const query: Record<string, string> = {};
  for (const part of parts) {
    const separator = part.indexOf('=');
    const key = separator < 0 ? part : part.slice(0, separator);
    if (key === '' || key in query || FORBIDDEN_KEYS.has(key)) return null;
    query[key] = separator < 0 ? '' : part.slice(separator + 1);
  }
  return query;
}

/** `+` is a space in a query string; a malformed %-sequence or invalid UTF-8 is the client's mistake. */
function decodeComponent(text: string, key: string | null): string {
  if (!text.includes('%')) return text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw ApiError.invalidQueryParams(`${key === null ? `query parameter name ${text}` : `query parameter ${key}`} is not valid percent-encoded UTF-8`);
  }
}

/** Every path segment must be valid percent-encoded UTF-8 without control characters. */
export function checkPath(path: string): void {
  for (const segment of path.split('/')) {
    if (segment === '') continue;
    // Without a `%` there is nothing to decode (decodeURIComponent would answer the segment itself).
    let decoded = segment;
    if (segment.includes('%')) {
      try {
        decoded = decodeURIComponent(segment);
      } catch {
        throw ApiError.invalidQueryParams(`The path segment ${segment.slice(0, 100)} is not valid percent-encoded UTF-8`);
      }
    }
    const problem = textProblem(decoded);
    // eslint-disable-next-line no-control-regex
    if (problem || /[\u0000-\u001f\u007f]/.test(decoded)) {
      throw ApiError.invalidQueryParams(`The path segment ${segment.slice(0, 100)} ${problem ?? 'must not contain control characters'}`);
    }
  }
}

/**
 * Path and query string, checked once per request. The parsed query replaces Express's lazy `req.query`
 * getter (which would parse again on every read, with Express's own, unbounded settings).
 */
export function requestGuard(req: Request, _res: Response, next: NextFunction): void {
  try {
    const url = req.url;
    const mark = url.indexOf('?');
    checkPath(mark < 0 ? url : url.slice(0, mark));
    const query = parseQuery(mark < 0 ? '' : url.slice(mark + 1));
    Object.defineProperty(req, 'query', { value: query, writable: true, configurable: true, enumerable: true });
    next();
  } catch (error) {
    next(error);
  }
}

/**
 * Express's JSON parser (1 MiB limit → 413, content encodings, malformed JSON → 400) with a check of the
 * raw bytes before JSON.parse runs: UTF-8 only (RFC 8259), valid UTF-8, and a shape inside INPUT_LIMITS.
 * An error thrown here keeps its status (body-parser passes it on as the cause of an HTTP error).
 */
export function jsonBodyParser(): RequestHandler {
  return json({
    limit: BODY_LIMIT_BYTES,
    verify: (_req, _res, buffer: Buffer, encoding: string) => {
      if (encoding.toLowerCase() !== 'utf-8') {
        throw new ApiError(415, 'unsupported_media_type', 'Unsupported media type', { details: `JSON bodies must be UTF-8; got charset ${encoding}` });
      }
      if (!isUtf8(buffer)) throw ApiError.invalidPayload('Request body is not valid UTF-8');
      scanJsonShape(buffer);
    },
  });
}

/** After parsing: the content of every string and key in the body (NUL, lone surrogates, length, keys). */
export function bodyGuard(req: Request, _res: Response, next: NextFunction): void {
  try {
    if (req.body !== undefined) inspectInput(req.body, 'body');
    next();
  } catch (error) {
    next(error);
  }
}
