import { ApiError } from '../errors/api-error.js';
import { INPUT_LIMITS, inspectInput, scanJsonShape } from './input-limits.js';

function scan(text: string): string | null {
  try {
    scanJsonShape(Buffer.from(text, 'utf8'));
    return null;
  } catch (error) {
    if (error instanceof ApiError) return error.extra.details ?? error.message;
    throw error;
  }
}

function inspect(value: unknown, location: 'body' | 'query' = 'body'): string | null {
  try {
    inspectInput(value, location);
    return null;
  } catch (error) {
    if (error instanceof ApiError) return `${error.key}: ${error.extra.details}`;
    throw error;
  }
}

const keys = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`;

describe('scanJsonShape (before JSON.parse)', () => {
  it('lets every body within the limits through', () => {
    expect(scan(keys(INPUT_LIMITS.keysPerObject))).toBeNull();
    expect(scan(`${'['.repeat(INPUT_LIMITS.depth)}${']'.repeat(INPUT_LIMITS.depth)}`)).toBeNull();
    expect(scan('{}')).toBeNull();
    expect(scan('[]')).toBeNull();
  });

  it('counts keys and items per object and array, naming where', () => {
    expect(scan(keys(INPUT_LIMITS.keysPerObject + 1))).toBe('Request body has more than 1000 keys');
    expect(scan(`{"a":{"b":${keys(1001)}}}`)).toBe('a.b has more than 1000 keys');
    expect(scan(`{"list":[${Array(1001).fill(0).join(',')}]}`)).toBe('list has more than 1000 items');
    expect(scan(`{"x":[1,{"y":[${Array(1001).fill(0).join(',')}]}]}`)).toBe('x.1.y has more than 1000 items');
  });

  it('bounds depth, naming the top-level field it starts in', () => {
    expect(scan(`{"address":${'['.repeat(40)}${']'.repeat(40)}}`)).toBe('address nests objects or arrays more than 32 levels deep');
    expect(scan(`${'{"a":'.repeat(33)}1${'}'.repeat(33)}`)).toBe('a nests objects or arrays more than 32 levels deep');
  });

  it('bounds the total number of values', () => {
    const rows = Array.from({ length: 20 }, () => `[${Array(600).fill(0).join(',')}]`).join(',');
    expect(scan(`{"rows":[${rows}]}`)).toBe('Request body has more than 10000 values');
  });

  it('does not count structure inside strings, escaped quotes included', () => {
    const tricky = `"a,b,{[\\"],:${','.repeat(5000)}"`;
    expect(scan(`{"k":${tricky},"l":[${tricky}]}`)).toBeNull();
    expect(scan(`{"key \\" with, [brackets":${keys(1001)}}`)).toBe('key " with, [brackets has more than 1000 keys');
  });

  it('reads multi-byte UTF-8 without confusing it with structure', () => {
    expect(scan('{"名前":"データ,[]{}","emoji":"🎉"}')).toBeNull();
  });
});

describe('inspectInput (after parsing)', () => {
  it('passes ordinary values', () => {
    expect(inspect({ a: 'text', b: [1, 'two', null, { c: true }], 'emoji 🎉': 'ok' })).toBeNull();
  });

  it('refuses NUL and lone surrogates in values and keys, by path', () => {
    expect(inspect({ a: { b: ['ok', 'x\u0000'] } })).toBe('invalid_payload: a.b.1 must not contain the NUL character (\\u0000)');
    expect(inspect({ a: 'x\ud800' })).toBe('invalid_payload: a must not contain a lone UTF-16 surrogate (\\ud800-\\udfff without its pair)');
    expect(inspect({ a: '\udc00x' })).toMatch(/^invalid_payload: a must not contain a lone UTF-16 surrogate/);
    expect(inspect({ a: { 'k\u0000': 1 } })).toBe('invalid_payload: The key of a must not contain the NUL character (\\u0000)');
    expect(inspect({ q: 'x\u0000' }, 'query')).toBe('invalid_query_params: q must not contain the NUL character (\\u0000)');
  });

  it('refuses prototype keys wherever they are', () => {
    expect(inspect(JSON.parse('{"a":{"__proto__":{"x":1}}}'))).toBe('invalid_payload: property a.__proto__ is not allowed');
    expect(inspect({ constructor: 1 })).toBe('invalid_payload: property constructor is not allowed');
  });

  it('bounds string length and shape', () => {
    expect(inspect({ s: 'x'.repeat(INPUT_LIMITS.stringLength) })).toBeNull();
    expect(inspect({ s: 'x'.repeat(INPUT_LIMITS.stringLength + 1) })).toBe('invalid_payload: s must be at most 65536 characters long');
    let deep: unknown = 1;
    for (let i = 0; i < 40; i += 1) deep = [deep];
    expect(inspect({ top: deep })).toBe('invalid_payload: top nests objects or arrays more than 32 levels deep');
  });
});
