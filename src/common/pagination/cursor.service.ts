import { createHmac, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InstanceSecretRepository } from '../../database/instance-secret.repository.js';
import { ApiError } from '../errors/api-error.js';

/** How long a `cursor.next` stays usable. Each page hands out a fresh one. */
export const CURSOR_TTL_MS = 60 * 60 * 1000;
const MAC_BYTES = 16;

export interface CursorDto {
  next: string;
  expires_at: string;
}

interface CursorPayload {
  /** The scope the cursor was made for: project, list and every query parameter but the cursor. */
  s: string;
  /** Keyset position: the sort values of the last row returned. */
  p: unknown[];
  /** Expiry, epoch milliseconds. */
  e: number;
}

/**
 * Opaque, tamper-proof, expiring keyset cursors (`<prefix>` + hex), for the v2 lists (docs/decisions.md, Cursors).
 * The payload is HMAC-signed with an installation secret, and carries its scope, so a cursor cannot be
 * edited, nor used with another project, list, filter or ordering.
 */
@Injectable()
export class CursorService {
  private key?: Promise<Buffer>;

  constructor(private readonly secrets: InstanceSecretRepository) {}

  async encode(prefix: string, scope: string, position: unknown[], now = Date.now()): Promise<CursorDto> {
    const expiresAt = now + CURSOR_TTL_MS;
    const body = Buffer.from(JSON.stringify({ s: scope, p: position, e: expiresAt } satisfies CursorPayload), 'utf8');
    const mac = await this.mac(body);
    return { next: `${prefix}${body.toString('hex')}${mac.toString('hex')}`, expires_at: new Date(expiresAt).toISOString() };
  }

  /** The keyset position, or 400 `invalid_or_expired_cursor`. */
  async decode(prefix: string, cursor: string, scope: string, now = Date.now()): Promise<unknown[]> {
    const hex = cursor.startsWith(prefix) ? cursor.slice(prefix.length) : '';
    const raw = /^(?:[0-9a-f]{2})+$/.test(hex) ? Buffer.from(hex, 'hex') : Buffer.alloc(0);
    if (raw.length <= MAC_BYTES) throw invalidCursor();
    const body = raw.subarray(0, raw.length - MAC_BYTES);
    if (!timingSafeEqual(raw.subarray(raw.length - MAC_BYTES), await this.mac(body))) throw invalidCursor();
    const payload = JSON.parse(body.toString('utf8')) as CursorPayload;
    if (payload.s !== scope) throw invalidCursor('The cursor was made for another query; send the same filters and order as the first page');
    if (payload.e < now) throw invalidCursor('The cursor has expired; start again from the first page');
    return payload.p;
  }

  /**
   * One page of a newest-first list keyed by a `seq` column (events, distributions, deliveries): `fetch`
   * reads up to `limit` rows before the position the cursor carries (null: from the newest); one more row
   * than the page says whether a next page exists.
   */
  async seqPage<T extends { seq: string }>(
    prefix: string,
    scope: string,
    cursor: string | undefined,
    limit: number,
    fetch: (beforeSeq: string | null, limit: number) => Promise<T[]>,
  ): Promise<{ page: T[]; cursor: CursorDto | null }> {
    const before = cursor !== undefined ? ((await this.decode(prefix, cursor, scope)) as [string])[0] : null;
    const rows = await fetch(before, limit + 1);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return { page, cursor: rows.length > limit && last ? await this.encode(prefix, scope, [last.seq]) : null };
  }

  private async mac(body: Buffer): Promise<Buffer> {
    return createHmac('sha256', await this.loadKey()).update(body).digest().subarray(0, MAC_BYTES);
  }

  /** Read once and kept; a failed read (database down) is retried by the next request. */
  private loadKey(): Promise<Buffer> {
    if (!this.key) {
      this.key = this.secrets.get('cursor').then((key) => {
        if (!key) throw new Error('instance secret "cursor" is missing; run the migrations');
        return key;
      });
      this.key.catch(() => (this.key = undefined));
    }
    return this.key;
  }
}

function invalidCursor(details = 'The cursor is not one this service issued'): ApiError {
  return new ApiError(400, 'invalid_or_expired_cursor', 'Invalid or expired cursor', { details });
}
