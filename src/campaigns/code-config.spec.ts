import { ALPHANUMERIC } from './dto/campaign-settings.dto.js';
import { CodeGenerator, checkCodeSpace, codeSpace, resolveCodeConfig } from './code-config.js';

describe('code_config', () => {
  it('defaults to 8 alphanumeric characters', () => {
    expect(resolveCodeConfig(undefined)).toEqual({ length: 8, charset: ALPHANUMERIC, pattern: '########' });
  });

  it('lets the pattern decide the length, and drops duplicate charset characters', () => {
    expect(resolveCodeConfig({ pattern: 'AB-###-#', length: 20, charset: 'aabbc' })).toEqual({ length: 4, charset: 'abc', pattern: 'AB-###-#' });
    expect(resolveCodeConfig({ length: 3 })).toMatchObject({ length: 3, pattern: '###' });
  });

  it('refuses more placeholders than the maximum', () => {
    expect(resolveCodeConfig({ pattern: '#'.repeat(65) })).toMatch(/at most 64 # placeholders/);
  });

  it('counts the code space and asks for twice the cards', () => {
    const config = { length: 2, charset: '0123456789', pattern: '##' };
    expect(codeSpace(config)).toBe(100n);
    expect(checkCodeSpace(config, 50)).toBeNull();
    expect(checkCodeSpace(config, 51)).toMatch(/can make only 100 distinct codes, but vouchers_count 51 needs at least 102/);
    expect(codeSpace({ length: 64, charset: ALPHANUMERIC, pattern: '#'.repeat(64) })).toBe(62n ** 64n);
  });

  it('generates codes of the pattern, uniformly, never repeating what the job already drew', () => {
    const generator = new CodeGenerator({ length: 2, charset: 'ab', pattern: 'X-##', prefix: 'p', postfix: 's' });
    const drawn = new Set<string>();
    const first = generator.distinct(3, drawn);
    expect(first).toHaveLength(3);
    for (const code of first) expect(code).toMatch(/^pX-[ab]{2}s$/);
    const rest = generator.distinct(3, drawn);
    expect(rest).toHaveLength(1);
    expect(new Set([...first, ...rest]).size).toBe(4);
    expect(generator.distinct(1, drawn)).toEqual([]);

    const counts = new Map<string, number>();
    const wide = new CodeGenerator({ length: 1, charset: 'abc', pattern: '#' });
    for (let i = 0; i < 30_000; i += 1) {
      const code = wide.next();
      counts.set(code, (counts.get(code) ?? 0) + 1);
    }
    for (const ch of 'abc') expect(counts.get(ch)).toBeGreaterThan(9_000);
  });
});
