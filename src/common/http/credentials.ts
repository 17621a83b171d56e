import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Checks of the operator secrets (METRICS_TOKEN, ADMIN_TOKEN) carried in an Authorization header. Both sides
 * are hashed first so that `timingSafeEqual` compares two buffers of one length: comparing the strings, or
 * their lengths, would let the time an answer takes tell how much of a guess was right. A missing or
 * malformed header is compared too (as an empty secret), so it costs what a wrong secret costs.
 */
function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(createHash('sha256').update(given).digest(), createHash('sha256').update(expected).digest());
}

/** `Authorization: Bearer <token>` (RFC 6750; the scheme is case-insensitive) carrying exactly `token`. */
export function bearerTokenMatches(authorization: string | undefined, token: string): boolean {
  const match = /^bearer +(\S+) *$/i.exec(authorization ?? '');
  return sameSecret(match?.[1] ?? '', token);
}

/** `Authorization: Basic base64(user:password)` (RFC 7617) with any user name and exactly `password`. */
export function basicPasswordMatches(authorization: string | undefined, password: string): boolean {
  const match = /^basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(authorization ?? '');
  const decoded = match ? Buffer.from(match[1], 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  const matches = sameSecret(colon < 0 ? '' : decoded.slice(colon + 1), password);
  return matches && colon >= 0;
}
