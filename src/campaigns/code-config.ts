import { RandomChars } from '../common/ids.js';
import type { VoucherModel } from './campaign.entity.js';
import { ALPHANUMERIC, type CodeConfigDto, MAX_CHARSET_LENGTH, MAX_CODE_LENGTH } from './dto/campaign-settings.dto.js';

export type CodeConfig = VoucherModel['code_config'];

export const DEFAULT_CODE_LENGTH = 8;

/**
 * Random generation needs room: with at least twice as many possible codes as cards, a drawn code is
 * new at least half the time, so generation stays fast to the last card (see docs/decisions.md).
 */
export const CODE_SPACE_FACTOR = 2n;

/**
 * Voucherify's defaults and precedence: the pattern's `#` count overrides `length`; without a pattern
 * the pattern is `length` × `#`. Duplicate charset characters are dropped (they would skew the odds).
 * Returns the stored config, or a message naming the property that is wrong.
 */
export function resolveCodeConfig(dto: CodeConfigDto | undefined): CodeConfig | string {
  const charset = [...new Set(dto?.charset ?? ALPHANUMERIC)].join('');
  if ([...charset].length > MAX_CHARSET_LENGTH) return `voucher.code_config.charset must have at most ${MAX_CHARSET_LENGTH} distinct characters`;
  const pattern = dto?.pattern ?? '#'.repeat(dto?.length ?? DEFAULT_CODE_LENGTH);
  const length = placeholders(pattern);
  if (length > MAX_CODE_LENGTH) return `voucher.code_config.pattern must have at most ${MAX_CODE_LENGTH} # placeholders`;
  const config: CodeConfig = { length, charset, pattern };
  if (dto?.prefix !== undefined) config.prefix = dto.prefix;
  if (dto?.postfix !== undefined) config.postfix = dto.postfix;
  return config;
}

export function placeholders(pattern: string): number {
  let count = 0;
  for (const ch of pattern) if (ch === '#') count += 1;
  return count;
}

/** How many distinct codes the config can make. */
export function codeSpace(config: CodeConfig): bigint {
  return BigInt([...config.charset].length) ** BigInt(placeholders(config.pattern));
}

/** Null when `count` cards fit the code space with room to spare; else why not. */
export function checkCodeSpace(config: CodeConfig, count: number): string | null {
  if (count === 0) return null;
  const space = codeSpace(config);
  if (space >= BigInt(count) * CODE_SPACE_FACTOR) return null;
  return (
    `voucher.code_config can make only ${space} distinct codes, but vouchers_count ${count} needs at least ${BigInt(count) * CODE_SPACE_FACTOR} ` +
    '(twice the count, so random codes rarely collide): use a longer pattern or length, or a larger charset'
  );
}

/** Random codes for a config: prefix + pattern with each `#` drawn uniformly from the charset + postfix. */
export class CodeGenerator {
  private readonly random: RandomChars;

  constructor(private readonly config: CodeConfig) {
    this.random = new RandomChars(config.charset);
  }

  next(): string {
    return (this.config.prefix ?? '') + this.random.fill(this.config.pattern) + (this.config.postfix ?? '');
  }

  /** `count` new codes, none of them in `drawn` (which records them): this job never draws a code twice. */
  distinct(count: number, drawn: Set<string>): string[] {
    const codes: string[] = [];
    // Bounded: the code space is at least twice any count we are asked for, so draws succeed often.
    for (let draws = 0; codes.length < count && draws < count * 20 + 100; draws += 1) {
      const code = this.next();
      if (!drawn.has(code)) {
        drawn.add(code);
        codes.push(code);
      }
    }
    return codes;
  }
}
