import qs from 'qs';
import { ApiError } from '../errors/api-error.js';
import { parseQuery, QUERY_OPTIONS } from './request-guard.js';

function parsed(raw: string): unknown {
  try {
    return parseQuery(raw);
  } catch (error) {
    if (error instanceof ApiError) return `${error.key}: ${error.extra.details}`;
    throw error;
  }
}

describe('parseQuery', () => {
  // Plain `name=value` pairs skip qs (the member list's `limit=10`, `cursor=…`); the answer must be qs's.
  it.each([
    'limit=10',
    'limit=10&cursor=lcrsmbr_7b22733a',
    'order=-created_at&limit=100',
    'a',
    'a=',
    'a=1=2',
    'a.b=1',
    'x=~!*()\'-_.',
    'a=1&b&c=',
    'a?b=1',
    'prototype2=1',
  ])('answers %j as qs does', (raw) => {
    expect(parsed(raw)).toStrictEqual(qs.parse(raw, QUERY_OPTIONS));
  });

  it.each([
    // qs makes a list of a name given twice, and drops empty names and Object.prototype's names.
    ['a=1&a=2', { a: ['1', '2'] }],
    ['a=1&&b=2', { a: '1', b: '2' }],
    ['=1&a=2', { a: '2' }],
    ['toString=1&a=2', { a: '2' }],
    ['hasOwnProperty=x', {}],
    // Decoding: `+` is a space, escapes are decoded, brackets nest.
    ['q=a+b', { q: 'a b' }],
    ['q=%C3%A9', { q: 'é' }],
    ['filters[status][conditions][$is]=INACTIVE', { filters: { status: { conditions: { $is: 'INACTIVE' } } } }],
  ])('answers %j with qs: %j', (raw, expected) => {
    expect(parsed(raw)).toStrictEqual(expected);
    expect(parsed(raw)).toStrictEqual(qs.parse(raw, QUERY_OPTIONS));
  });

  it('refuses forbidden names, bad escapes and too many parameters as before', () => {
    expect(parsed('prototype=1')).toBe('invalid_query_params: query parameter prototype is not allowed');
    expect(parsed('constructor=1')).toBe('invalid_query_params: query parameter constructor is not allowed');
    expect(parsed('__proto__=1')).toBe('invalid_query_params: query parameter __proto__ is not allowed');
    expect(parsed('a=%ZZ')).toBe('invalid_query_params: query parameter a is not valid percent-encoded UTF-8');
    expect(parsed(Array.from({ length: 1001 }, (_, i) => `k${i}=1`).join('&'))).toMatch(/^invalid_query_params: The query string is too complex: Parameter limit exceeded/);
    expect(Object.keys(parsed(Array.from({ length: 1000 }, (_, i) => `k${i}=1`).join('&')) as object)).toHaveLength(1000);
  });

  it('checks the values of plain pairs too', () => {
    expect(parsed(`a=${'x'.repeat(65_537)}`)).toBe('invalid_query_params: a must be at most 65536 characters long');
  });
});
