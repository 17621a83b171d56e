import { randomBytes } from 'node:crypto';

/** Random bytes taken from a 64 KiB buffer refilled from the CSPRNG (one syscall per 7,000 ids, not one per id). */
let hexPool = Buffer.alloc(0);
let hexOffset = 0;

/** `<prefix>` + 18 hex characters, the shape Voucherify uses for most ids (`cat_`, `lopp_`, `proj_`…). */
export function hexId(prefix: string, bytes = 9): string {
  if (hexOffset + bytes > hexPool.length) {
    hexPool = randomBytes(65_536);
    hexOffset = 0;
  }
  const id = hexPool.toString('hex', hexOffset, hexOffset + bytes);
  hexOffset += bytes;
  return `${prefix}${id}`;
}

let lastMicros = 0;

/**
 * `<prefix>` + 13 hex characters of the microsecond + 9 random ones, for the rows of an append-only log (the
 * ledger's `vtx_`, the events' `evcus_`): as the SQL function `loyalty_time_id` makes them, so that a batch's
 * rows land at the right edge of the primary key rather than on random pages (bench/README.md, "Activation by
 * cohort"). Within a process they only grow: a millisecond's ids count up from its first microsecond.
 */
export function timeId(prefix: string): string {
  lastMicros = Math.max(Date.now() * 1000, lastMicros + 1);
  return `${prefix}${lastMicros.toString(16).padStart(13, '0')}${hexId('', 5).slice(0, 9)}`;
}

export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Uniform random characters from an alphabet, drawn from a buffered CSPRNG. Bytes at or above the
 * largest multiple of the alphabet size are discarded, so no character is more likely than another.
 * Card generation draws millions of characters; one randomBytes call per 64 KiB keeps that cheap.
 */
export class RandomChars {
  private readonly chars: string[];
  /** Byte values of the characters when all are ASCII, for the Buffer fast path. */
  private readonly ascii: Uint8Array | null;
  private readonly limit: number;
  private pool = Buffer.alloc(0);
  private offset = 0;

  constructor(alphabet: string | readonly string[]) {
    this.chars = [...alphabet];
    if (this.chars.length < 1 || this.chars.length > 256) throw new RangeError('alphabet must have 1-256 characters');
    this.limit = 256 - (256 % this.chars.length);
    this.ascii = this.chars.every((ch) => ch.length === 1 && ch.charCodeAt(0) < 128) ? Uint8Array.from(this.chars, (ch) => ch.charCodeAt(0)) : null;
  }

  /** The template with every `#` replaced by a random character. */
  fill(template: string): string {
    if (this.ascii && isAscii(template)) {
      const out = Buffer.from(template, 'latin1');
      for (let i = 0; i < out.length; i += 1) if (out[i] === HASH) out[i] = this.ascii[this.nextIndex()];
      return out.toString('latin1');
    }
    let out = '';
    for (const ch of template) out += ch === '#' ? this.chars[this.nextIndex()] : ch;
    return out;
  }

  string(length: number): string {
    return this.fill('#'.repeat(length));
  }

  private nextIndex(): number {
    for (;;) {
      if (this.offset >= this.pool.length) {
        this.pool = randomBytes(65_536);
        this.offset = 0;
      }
      const byte = this.pool[this.offset++];
      if (byte < this.limit) return byte % this.chars.length;
    }
  }
}

const HASH = 0x23;

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) if (text.charCodeAt(i) >= 128) return false;
  return true;
}

const base62 = new RandomChars(BASE62);

/** `<prefix>` + `length` base62 characters (`camp_` uses 24, `v_` uses 32). */
export function base62Id(prefix: string, length: number): string {
  return prefix + base62.string(length);
}
