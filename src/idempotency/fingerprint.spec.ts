import { canonicalJson, requestFingerprint } from './fingerprint.js';

describe('requestFingerprint', () => {
  it('is the same whatever the order of the keys, at every depth', () => {
    const a = { memberId: 'lmbr_1', body: { points: 10, reason: { code: 'x', note: 'y' } } };
    const b = { body: { reason: { note: 'y', code: 'x' }, points: 10 }, memberId: 'lmbr_1' };
    expect(canonicalJson(a)).toBe('{"body":{"points":10,"reason":{"code":"x","note":"y"}},"memberId":"lmbr_1"}');
    expect(requestFingerprint(a)).toBe(requestFingerprint(b));
    expect(requestFingerprint(a)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('differs when a value, an item or the order of an array differs', () => {
    const base = requestFingerprint({ points: 10, tags: ['a', 'b'] });
    expect(requestFingerprint({ points: 11, tags: ['a', 'b'] })).not.toBe(base);
    expect(requestFingerprint({ points: '10', tags: ['a', 'b'] })).not.toBe(base);
    expect(requestFingerprint({ points: 10, tags: ['b', 'a'] })).not.toBe(base);
    expect(requestFingerprint({ points: 10, tags: ['a', 'b'], extra: null })).not.toBe(base);
  });

  it('reads values as JSON does: undefined properties left out, dates and class instances by their JSON', () => {
    class Dto {
      points = 5;
      reason: string | undefined = undefined;
    }
    expect(canonicalJson(new Dto())).toBe('{"points":5}');
    expect(canonicalJson({ at: new Date('2026-01-01T00:00:00Z'), list: [undefined, 1] })).toBe('{"at":"2026-01-01T00:00:00.000Z","list":[null,1]}');
    expect(canonicalJson(undefined)).toBe('null');
  });
});
