import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { ApiError } from '../errors/api-error.js';

/** The versioned prefix of a sealed value: `enc:v1:<key id>:<iv>:<ciphertext and tag>` (base64url). */
const PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A stored value that none of the configured keys opens (a key removed too early, or a value altered). */
export class UnreadableValueError extends ApiError {
  constructor(readonly keyId: string | null) {
    super(503, 'service_unavailable', 'Service unavailable', { details: 'A stored webhook setting cannot be decrypted with the keys this service is configured with' });
    this.name = 'UnreadableValueError';
  }
}

/** The key's public name in sealed values: the start of a hash of it (it tells which key, nothing of the key). */
export function keyId(key: Buffer): string {
  return createHash('sha256').update('loyalty-data-key:').update(key).digest('hex').slice(0, 8);
}

/**
 * Secrets at rest (issue 36): webhook signing secrets and distributions' custom header values, sealed with
 * AES-256-GCM under DATA_ENCRYPTION_KEY when it is set. A sealed value names its key (`keyId`), so values
 * sealed under a key listed in DATA_ENCRYPTION_PREVIOUS_KEYS still open after a rotation, and plain values
 * (written before a key was set, or with none) are read as they are: plain and sealed values coexist, and
 * `cli.js encrypt-secrets` rewrites every value that is not under the current key. `context` is bound to the
 * value as GCM's additional data (the row it belongs to): a sealed value copied to another row does not open.
 *
 * Without a key, values are stored plain, as before (docs/operations.md says what that leaves exposed).
 */
@Injectable()
export class DataCipher {
  private readonly logger = new Logger('DataCipher');
  private readonly current: { id: string; key: Buffer } | null;
  private readonly keys: Map<string, Buffer>;
  private readonly reported = new Set<string>();

  constructor(config: AppConfig) {
    const { key, previousKeys } = config.dataEncryption;
    this.current = key ? { id: keyId(key), key } : null;
    this.keys = new Map([...previousKeys, ...(key ? [key] : [])].map((k) => [keyId(k), k]));
  }

  /** Whether values are sealed when written (DATA_ENCRYPTION_KEY is set). */
  get enabled(): boolean {
    return this.current !== null;
  }

  /** The value as it is stored: sealed under the current key, or plain without one. */
  seal(plain: string, context: string): string {
    if (!this.current) return plain;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${PREFIX}${this.current.id}:${iv.toString('base64url')}:${sealed.toString('base64url')}`;
  }

  /** The stored value read: opened if sealed (by any configured key), as it is if plain. Throws UnreadableValueError. */
  open(stored: string, context: string): string {
    if (!isSealed(stored)) return stored;
    const [id, iv, sealed] = stored.slice(PREFIX.length).split(':');
    const key = this.keys.get(id);
    if (!key || !iv || !sealed) throw this.unreadable(id ?? null, key ? 'malformed or altered' : 'key not configured');
    try {
      const bytes = Buffer.from(sealed, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw this.unreadable(id, 'malformed or altered');
    }
  }

  /** Whether the stored value is as a write would store it now (sealed under the current key, or plain without one). */
  isCurrent(stored: string): boolean {
    return this.current ? stored.startsWith(`${PREFIX}${this.current.id}:`) : !isSealed(stored);
  }

  private unreadable(id: string | null, why: string): UnreadableValueError {
    // Once per key and process: the operator learns which key is missing; the value itself is never logged.
    if (!this.reported.has(`${id}|${why}`)) {
      this.reported.add(`${id}|${why}`);
      this.logger.error({ key_id: id, reason: why }, 'a stored secret cannot be decrypted: check DATA_ENCRYPTION_KEY and DATA_ENCRYPTION_PREVIOUS_KEYS');
    }
    return new UnreadableValueError(id);
  }
}

export function isSealed(stored: string): boolean {
  return stored.startsWith(PREFIX);
}
