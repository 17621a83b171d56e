import { randomBytes } from 'node:crypto';

/** `<prefix>` + 18 hex characters, the shape Voucherify uses for most ids (`cat_`, `lopp_`, `proj_`…). */
export function hexId(prefix: string, bytes = 9): string {
  return `${prefix}${randomBytes(bytes).toString('hex')}`;
}

export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Uniform random characters from an alphabet, drawn from a buffered CSPRNG. Bytes at or above the
 * largest multiple of the alphabet size are discarded, so no character is more likely than another.
 * Card generation draws millions of characters; one randomBytes call per 64 KiB keeps that cheap.
 */
export class RandomChars {
  private readonly chars: string[];
  private readonly limit: number;
  private pool = Buffer.alloc(0);
  private offset = 0;

  constructor(alphabet: string | readonly string[]) {
    this.chars = [...alphabet];
    if (this.chars.length < 1 || this.chars.length > 256) throw new RangeError('alphabet must have 1-256 characters');
    this.limit = 256 - (256 % this.chars.length);
  }

  /** The template with every `#` replaced by a random character. */
  fill(template: string): string {
    let out = '';
    for (const ch of template) out += ch === '#' ? this.next() : ch;
    return out;
  }

  string(length: number): string {
    let out = '';
    for (let i = 0; i < length; i += 1) out += this.next();
    return out;
  }

  private next(): string {
    for (;;) {
      if (this.offset >= this.pool.length) {
        this.pool = randomBytes(65_536);
        this.offset = 0;
      }
      const byte = this.pool[this.offset++];
      if (byte < this.limit) return this.chars[byte % this.chars.length];
    }
  }
}

const base62 = new RandomChars(BASE62);

/** `<prefix>` + `length` base62 characters (`camp_` uses 24, `v_` uses 32). */
export function base62Id(prefix: string, length: number): string {
  return prefix + base62.string(length);
}
