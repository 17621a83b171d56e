import { ApiError } from '../common/errors/api-error.js';
import { parseFilters, parseOrder, planMemberList } from './member-list-query.js';

function rejection(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    return error as ApiError;
  }
  throw new Error('expected a rejection');
}

describe('member list order', () => {
  it('defaults to newest first with id as the tiebreaker', () => {
    expect(parseOrder(undefined)).toEqual([
      { column: 'created_at', desc: true },
      { column: 'id', desc: true },
    ]);
  });

  it('appends created_at and id in the direction of the last requested field', () => {
    expect(parseOrder(['-status'])).toEqual([
      { column: 'status', desc: true },
      { column: 'created_at', desc: true },
      { column: 'id', desc: true },
    ]);
    expect(parseOrder('created_at,-status')).toEqual([
      { column: 'created_at', desc: false },
      { column: 'status', desc: true },
      { column: 'id', desc: true },
    ]);
  });

  it('stops at customer_id, which is unique among a program\'s members', () => {
    expect(parseOrder(['status', 'customer_id', 'created_at'])).toEqual([
      { column: 'status', desc: false },
      { column: 'customer_id', desc: false },
    ]);
  });

  it('rejects unknown values and a field given twice', () => {
    expect(rejection(() => parseOrder('name')).key).toBe('invalid_query_params');
    expect(rejection(() => parseOrder(['status', '-status'])).extra.details).toMatch(/both ascending and descending/);
    expect(rejection(() => parseOrder(['status', 'status'])).extra.details).toMatch(/twice/);
    expect(rejection(() => parseOrder({ a: 1 })).extra.details).toMatch(/not an object/);
  });
});

describe('member list filters', () => {
  it('normalises values: deduplicated, sorted, from arrays, numeric-key objects and commas', () => {
    const a = parseFilters({ id: { conditions: { $in: ['lmbr_b', 'lmbr_a', 'lmbr_b'] } } });
    const b = parseFilters({ id: { conditions: { $in: { 0: 'lmbr_a', 1: 'lmbr_b' } } } });
    const c = parseFilters({ id: { conditions: { $in: 'lmbr_b,lmbr_a' } } });
    expect(a).toEqual({ junction: 'AND', fields: [{ field: 'id', conditions: [{ column: 'id', op: 'in', values: ['lmbr_a', 'lmbr_b'] }] }] });
    expect(b).toEqual(a);
    expect(c).toEqual(a);
  });

  it('reads $is on a plain date as that UTC day, and a date-time as that instant', () => {
    const day = parseFilters({ created_at: { conditions: { $is: '2026-03-01' } } }).fields[0].conditions[0];
    expect(day).toEqual({ column: 'created_at', op: 'on_day', from: new Date('2026-03-01T00:00:00Z'), until: new Date('2026-03-02T00:00:00Z') });
    const instant = parseFilters({ created_at: { conditions: { $is: '2026-03-01T10:00:00.123Z' } } }).fields[0].conditions[0];
    expect(instant).toEqual({ column: 'created_at', op: 'at', at: new Date('2026-03-01T10:00:00.123Z') });
  });

  it('gives the same scope whatever the order the filters were written in', () => {
    const one = planMemberList('lprg_1', undefined, { status: { conditions: { $is: 'ACTIVE' } }, customer_id: { conditions: { $in: 'cust_b,cust_a' } } });
    const two = planMemberList('lprg_1', '-created_at', { customer_id: { conditions: { $in: ['cust_a', 'cust_b'] } }, status: { conditions: { $is: 'ACTIVE' } } });
    expect(one.canonical).toBe(two.canonical);
    expect(planMemberList('lprg_2', undefined, undefined).canonical).not.toBe(planMemberList('lprg_1', undefined, undefined).canonical);
  });

  it('names the parameter it rejects', () => {
    expect(rejection(() => parseFilters({ status: { conditions: { $in: ['ACTIVE', 'PAUSED'] } } })).extra.details).toMatch(/filters\[status\]\[conditions\]\[\$in\].*PAUSED/);
    expect(rejection(() => parseFilters({ created_at: { conditions: { $after: '2026-13-01' } } })).extra.details).toMatch(/filters\[created_at\]\[conditions\]\[\$after\]/);
    expect(rejection(() => parseFilters({ id: { conditions: { $is: { nested: 'x' } } } })).extra.details).toMatch(/not an object/);
  });
});
