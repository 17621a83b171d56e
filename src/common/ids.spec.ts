import { hexId, timeId } from './ids.js';

describe('ids', () => {
  it('hexId: the prefix and 18 random hex characters', () => {
    const ids = Array.from({ length: 1_000 }, () => hexId('ord_'));
    for (const id of ids) expect(id).toMatch(/^ord_[0-9a-f]{18}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('timeId: the prefix, 13 hex characters of the microsecond, 9 random ones; within a process each is later than the one before', () => {
    const before = Date.now() * 1000;
    const ids = Array.from({ length: 10_000 }, () => timeId('vtx_'));
    const after = Date.now() * 1000;
    for (const id of ids) expect(id).toMatch(/^vtx_[0-9a-f]{22}$/);
    const micros = ids.map((id) => parseInt(id.slice(4, 17), 16));
    // 10,000 ids in a few milliseconds: more than one a microsecond, so the count runs ahead of the clock by at most that many.
    expect(micros[0]).toBeGreaterThanOrEqual(before);
    expect(micros.at(-1)).toBeLessThanOrEqual(after + 1_000 + ids.length);
    for (let i = 1; i < micros.length; i += 1) expect(micros[i]).toBeGreaterThan(micros[i - 1]);
    expect([...ids].sort()).toEqual(ids);
  });
});
