import { ApiError } from '../errors/api-error.js';

/**
 * Bounds on the shape of any JSON body or query string, checked at the edge before parsing (bodies) and
 * before validation (both), so that no input can hold the event loop or blow the stack further in
 * (class-transformer and class-validator recurse; a 119,000-key object took 10 s to reject). Every DTO is
 * far inside these bounds; tighter rules (metadata, field lengths) are the DTOs' own.
 */
export const INPUT_LIMITS = {
  /** Objects and arrays nested inside each other. */
  depth: 32,
  keysPerObject: 1_000,
  itemsPerArray: 1_000,
  /** Keys, items and the root together. */
  values: 10_000,
  /** Characters of one string or key. */
  stringLength: 65_536,
} as const;

/** Keys that would reach `Object.prototype` in naive code; no field of ours is called that. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export type InputLocation = 'body' | 'query';

function invalid(location: InputLocation, details: string): ApiError {
  return location === 'body' ? ApiError.invalidPayload(details) : ApiError.invalidQueryParams(details);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

interface Frame {
  array: boolean;
  items: number;
  /** Offsets of the current key's string literal (objects), for naming the field in an error. */
  keyStart: number;
  keyEnd: number;
}

/**
 * One linear pass over a UTF-8 JSON text that measures nesting and counts keys and items, without building
 * anything: JSON.parse itself needs 100 ms for a 1 MiB object of 119,000 keys, so a body outside the bounds
 * must be refused before it is parsed. Syntax is left to JSON.parse; this only counts. Works on bytes,
 * since every structural character of JSON is ASCII and no byte of a multi-byte UTF-8 sequence is.
 */
export function scanJsonShape(text: Uint8Array): void {
  const frames: Frame[] = [];
  let values = 1;
  let stringStart = -1;
  let stringEnd = -1;
  for (let i = 0; i < text.length; i += 1) {
    const byte = text[i];
    if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) continue;
    const frame = frames[frames.length - 1] as Frame | undefined;
    if (byte === 0x7d || byte === 0x5d) {
      frames.pop();
      continue;
    }
    if (byte === 0x3a) {
      if (frame) [frame.keyStart, frame.keyEnd] = [stringStart, stringEnd];
      continue;
    }
    if (byte === 0x2c) {
      if (!frame) continue;
      frame.items += 1;
      values += 1;
      const limit = frame.array ? INPUT_LIMITS.itemsPerArray : INPUT_LIMITS.keysPerObject;
      if (frame.items > limit) throw ApiError.invalidPayload(`${shapePath(text, frames)} has more than ${limit} ${frame.array ? 'items' : 'keys'}`);
      if (values > INPUT_LIMITS.values) throw ApiError.invalidPayload(`Request body has more than ${INPUT_LIMITS.values} values`);
      continue;
    }
    // Anything else starts a key or a value.
    if (frame && frame.items === 0) frame.items = 1;
    if (byte === QUOTE) {
      stringStart = i;
      for (i += 1; i < text.length && text[i] !== QUOTE; i += 1) if (text[i] === BACKSLASH) i += 1;
      stringEnd = i;
    } else if (byte === 0x7b || byte === 0x5b) {
      frames.push({ array: byte === 0x5b, items: 0, keyStart: -1, keyEnd: -1 });
      values += 1;
      if (frames.length > INPUT_LIMITS.depth) {
        // Name the top-level field the nesting starts in: the full path would be 32 segments long.
        throw ApiError.invalidPayload(`${shapePath(text, frames.slice(0, 2))} nests objects or arrays more than ${INPUT_LIMITS.depth} levels deep`);
      }
    }
  }
}

/** `a.b.3` for the object or array `frames` ends in; `Request body` for the body itself. */
function shapePath(text: Uint8Array, frames: Frame[]): string {
  const parts: string[] = [];
  for (let i = 1; i < frames.length; i += 1) {
    const parent = frames[i - 1];
    if (parent.array) parts.push(String(Math.max(parent.items - 1, 0)));
    else parts.push(parent.keyStart >= 0 ? decodeKey(text.subarray(parent.keyStart, parent.keyEnd + 1)) : '?');
  }
  return parts.length && !frames[0].array ? parts.join('.') : 'Request body';
}

function decodeKey(literal: Uint8Array): string {
  try {
    return String(JSON.parse(Buffer.from(literal).toString('utf8')));
  } catch {
    return '?';
  }
}

/**
 * Walks a parsed body or query (iteratively: depth is bounded, but recursion is not needed) and refuses
 * what PostgreSQL cannot store or no client meant: NUL characters, lone UTF-16 surrogates (JSON can
 * escape them, UTF-8 cannot carry them), over-long strings, prototype-polluting keys, and shapes outside
 * INPUT_LIMITS. `details` names the field by its path.
 */
export function inspectInput(root: unknown, location: InputLocation): void {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: root, path: '', depth: 0 }];
  let values = 0;
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop() as { value: unknown; path: string; depth: number };
    values += 1;
    if (values > INPUT_LIMITS.values) throw invalid(location, `${location === 'body' ? 'Request body' : 'The query string'} has more than ${INPUT_LIMITS.values} values`);
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) throw invalid(location, `${describe(path, location)} ${problem}`);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= INPUT_LIMITS.depth) throw invalid(location, `${describe(topLevel(path), location)} nests objects or arrays more than ${INPUT_LIMITS.depth} levels deep`);
    if (Array.isArray(value)) {
      if (value.length > INPUT_LIMITS.itemsPerArray) throw invalid(location, `${describe(path, location)} has more than ${INPUT_LIMITS.itemsPerArray} items`);
      for (let i = value.length - 1; i >= 0; i -= 1) stack.push({ value: value[i], path: join(path, String(i)), depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(value);
    if (keys.length > INPUT_LIMITS.keysPerObject) throw invalid(location, `${describe(path, location)} has more than ${INPUT_LIMITS.keysPerObject} keys`);
    for (let i = keys.length - 1; i >= 0; i -= 1) {
      const key = keys[i];
      const keyPath = join(path, key);
      if (FORBIDDEN_KEYS.has(key)) throw invalid(location, `property ${keyPath} is not allowed`);
      const problem = textProblem(key);
      if (problem) throw invalid(location, `The key of ${describe(path, location)} ${problem}`);
      stack.push({ value: (value as Record<string, unknown>)[key], path: keyPath, depth: depth + 1 });
    }
  }
}

/** Why PostgreSQL could not store this text, or a client could not have meant it; null when it is fine. */
export function textProblem(text: string): string | null {
  if (text.length > INPUT_LIMITS.stringLength) return `must be at most ${INPUT_LIMITS.stringLength} characters long`;
  if (text.includes('\u0000')) return 'must not contain the NUL character (\\u0000)';
  if (!text.isWellFormed()) return 'must not contain a lone UTF-16 surrogate (\\ud800-\\udfff without its pair)';
  return null;
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function topLevel(path: string): string {
  return path.split('.')[0] ?? '';
}

function describe(path: string, location: InputLocation): string {
  if (path) return path;
  return location === 'body' ? 'Request body' : 'The query string';
}
