import type { DataCipher } from '../../common/crypto/data-cipher.js';

/**
 * How the events domain stores its secrets at rest (DataCipher, docs/operations.md "Secrets at rest"): what
 * binds each sealed value to its row, and the stored form of a distribution's custom headers. Shared by the
 * repositories that write them and by `toContext` (delivery.sql.ts), which reads them for every delivery.
 */

/** A project's signing secrets (both columns: a rotation copies `secret` to `previous_secret`). */
export const secretContext = (projectId: string) => `webhook_secrets:${projectId}`;

/** A distribution's custom headers. */
export const headersContext = (distributionId: string) => `distributions.custom_headers:${distributionId}`;

/**
 * The key under which `custom_headers` holds its sealed form, `{":sealed": "enc:v1:…"}` (the JSON of the
 * headers, sealed: names too). No header name contains a colon, so it never is a plain header.
 */
const SEALED = ':sealed';

/** Custom headers as stored: sealed under the current key when there is one and they are not empty, else plain. */
export function sealHeaders(cipher: DataCipher, distributionId: string, headers: Record<string, string>): Record<string, string> {
  if (!cipher.enabled || !Object.keys(headers).length) return headers;
  return { [SEALED]: cipher.seal(JSON.stringify(headers), headersContext(distributionId)) };
}

/** Custom headers as stored (sealed or plain) → the headers. Throws UnreadableValueError. */
export function openHeaders(cipher: DataCipher, distributionId: string, stored: Record<string, string>): Record<string, string> {
  const sealed = stored[SEALED];
  return typeof sealed === 'string' ? (JSON.parse(cipher.open(sealed, headersContext(distributionId))) as Record<string, string>) : stored;
}

/** Whether stored headers are as a write would store them now (sealed under the current key, or plain without one). */
export function headersCurrent(cipher: DataCipher, stored: Record<string, string>): boolean {
  const sealed = stored[SEALED];
  return typeof sealed === 'string' ? cipher.isCurrent(sealed) : !cipher.enabled || !Object.keys(stored).length;
}
