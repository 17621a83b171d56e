import { createHash } from 'node:crypto';

/**
 * JSON with every object's keys in code-point order, at every depth: two requests that differ only in the order
 * of their keys are the same request. Otherwise as JSON.stringify (toJSON first, undefined properties left out,
 * undefined in an array as null), so what a client cannot tell apart in JSON is the same request too.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sorted(value)) ?? 'null';
}

function sorted(value: unknown): unknown {
  const plain = value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function' ? (value as { toJSON(): unknown }).toJSON() : value;
  if (Array.isArray(plain)) return plain.map((item) => (item === undefined || typeof item === 'function' ? null : sorted(item)));
  if (plain === null || typeof plain !== 'object') return plain;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(plain).sort()) {
    const item = (plain as Record<string, unknown>)[key];
    if (item !== undefined && typeof item !== 'function') out[key] = sorted(item);
  }
  return out;
}

/** SHA-256 (hex) of the canonical JSON of what makes a request (its path parameters and body, as the route says). */
export function requestFingerprint(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}
