import { jest } from '@jest/globals';
import { useStack } from '../support/fixture.js';
import { REQUEST_ID, type TestProject } from '../support/harness.js';

/** A member as the database holds it: the model every expected answer is computed from. */
interface Row {
  id: string;
  customer_id: string;
  status: 'ACTIVE' | 'INACTIVE' | 'DELETED';
  created_at: string;
}

type Key = 'created_at' | 'status' | 'customer_id' | 'id';

const CURSOR = /^lcrsmbr_[a-f0-9]+$/;
const BASE = Date.parse('2026-01-01T00:00:00.000Z');
const MEMBERS = 240;

/** The documented full order: the requested keys, then created_at and id in the last key's direction, stopping at customer_id. */
function fullOrder(order: string[]): { key: Key; desc: boolean }[] {
  const keys = (order.length ? order : ['-created_at']).map((value) => ({ key: value.replace(/^-/, '') as Key, desc: value.startsWith('-') }));
  const cut = keys.findIndex((k) => k.key === 'customer_id');
  if (cut >= 0) return keys.slice(0, cut + 1);
  const last = keys[keys.length - 1].desc;
  if (!keys.some((k) => k.key === 'created_at')) keys.push({ key: 'created_at', desc: last });
  keys.push({ key: 'id', desc: last });
  return keys;
}

function compare(keys: { key: Key; desc: boolean }[]) {
  return (a: Row, b: Row): number => {
    for (const { key, desc } of keys) {
      const x = key === 'created_at' ? Date.parse(a.created_at) : a[key];
      const y = key === 'created_at' ? Date.parse(b.created_at) : b[key];
      if (x !== y) return (x < y ? -1 : 1) * (desc ? -1 : 1);
    }
    return 0;
  };
}

describe('GET /v2/loyalties/programs/{programId}/members', () => {
  const stack = useStack({ pg: true, projects: ['Member list', 'Member list (other project)'] });
  const { pg: db } = stack;
  let programId: string;
  let secondProgramId: string;
  let otherProgramId: string;
  let rows: Row[];

  const list = (query: string, program = programId, who: TestProject = stack.a) =>
    stack.http().get(`/v2/loyalties/programs/${program}/members${query ? `?${query}` : ''}`).set(who.headers);
  const enrol = (program: string, sourceId: string, who: TestProject = stack.a, status = 'ACTIVE') =>
    stack.http().post(`/v2/loyalties/programs/${program}/members`).set(who.headers).send({ customer_identification: { type: 'customer_source_id', customer_source_id: sourceId }, status });
  const campaign = async (name: string, who: TestProject = stack.a): Promise<string> =>
    (await stack.http().post('/v1/loyalties').set(who.headers).send({ name, type: 'AUTO_UPDATE', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } })).body.program_id;
  const live = () => rows.filter((row) => row.status !== 'DELETED');

  /** Every page from the first, following cursor.next; fails on any non-200 or a repeated member. */
  async function all(query: string, limit: number): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await list([query, `limit=${limit}`, cursor ? `cursor=${cursor}` : ''].filter(Boolean).join('&'));
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(limit);
      ids.push(...res.body.data.map((m: { id: string }) => m.id));
      cursor = res.body.cursor?.next ?? null;
      if (cursor) expect(res.body.data).toHaveLength(limit);
      pages += 1;
    } while (cursor);
    expect(new Set(ids).size).toBe(ids.length);
    return { ids, pages };
  }

  beforeAll(async () => {
    programId = await campaign('List program');
    secondProgramId = await campaign('Second program');
    otherProgramId = await campaign('Other project program', stack.b);

    for (let i = 0; i < MEMBERS; i += 20) {
      const batch = Array.from({ length: 20 }, (_, j) => enrol(programId, `list-${i + j}`, stack.a, (i + j) % 3 === 0 ? 'INACTIVE' : 'ACTIVE'));
      for (const res of await Promise.all(batch)) expect(res.status).toBe(200);
    }
    for (let i = 0; i < 5; i += 1) expect((await enrol(secondProgramId, `list-${i}`)).status).toBe(200);
    expect((await enrol(otherProgramId, 'outsider', stack.b)).status).toBe(200);

    // Creation times in groups of four identical milliseconds, so every order needs its tiebreakers.
    await db.query(
      `UPDATE members m SET created_at = to_timestamp(($2::bigint + (r.n / 4) * 1000) / 1000.0)
       FROM (SELECT id, (row_number() OVER (ORDER BY id)) - 1 AS n FROM members WHERE program_id = $1) r WHERE m.id = r.id`,
      [programId, BASE],
    );
    const deleted = (await db.query('SELECT id FROM members WHERE program_id = $1 ORDER BY id LIMIT 3', [programId])).rows.map((r) => r.id as string);
    for (const id of deleted) expect((await stack.http().delete(`/v2/loyalties/programs/${programId}/members/${id}`).set(stack.a.headers)).status).toBe(200);
    rows = (
      await db.query(`SELECT id, customer_id, status, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at FROM members WHERE program_id = $1`, [programId])
    ).rows;
    expect(rows).toHaveLength(MEMBERS);
  }, 60_000);

  describe('the first page', () => {
    it('is ten members newest first, without cards, with a signed cursor', async () => {
      const res = await list('');
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['cursor', 'data', 'object']);
      expect(res.body.object).toBe('list');
      const expected = [...live()].sort(compare(fullOrder([]))).slice(0, 10);
      expect(res.body.data.map((m: Row) => m.id)).toEqual(expected.map((m) => m.id));
      expect(res.body.data[0]).toEqual({
        id: expected[0].id,
        customer_id: expected[0].customer_id,
        program_id: programId,
        status: expected[0].status,
        metadata: {},
        created_at: expected[0].created_at,
        updated_at: null,
        object: 'member',
      });
      expect(res.body.cursor.next).toMatch(CURSOR);
      const expires = Date.parse(res.body.cursor.expires_at);
      expect(expires).toBeGreaterThan(Date.now() + 50 * 60_000);
      expect(expires).toBeLessThan(Date.now() + 61 * 60_000);
    });

    it('never lists deleted members, and lists inactive ones', async () => {
      const { ids } = await all('', 100);
      expect(ids.sort()).toEqual(live().map((m) => m.id).sort());
      expect(rows.filter((m) => m.status === 'DELETED')).toHaveLength(3);
      expect(live().some((m) => m.status === 'INACTIVE')).toBe(true);
    });

    it('returns a null cursor when everything fits, and an empty list for a program without members', async () => {
      const res = await list('limit=100', secondProgramId);
      expect(res.body.data).toHaveLength(5);
      expect(res.body.cursor).toBeNull();
      const empty = await list('', await campaign('Empty program'));
      expect(empty.body).toEqual({ data: [], cursor: null, object: 'list' });
    });
  });

  describe('ordering and paging: every member exactly once, in order', () => {
    const orders: string[][] = [
      [],
      ['created_at'],
      ['-created_at'],
      ['status'],
      ['-status'],
      ['customer_id'],
      ['-customer_id'],
      ['status', '-created_at'],
      ['-status', 'created_at'],
      ['created_at', 'status'],
      ['-created_at', '-status', 'customer_id'],
      ['status', 'customer_id'],
      ['-status', '-customer_id'],
      ['customer_id', 'status'],
    ];
    it.each(orders.map((order) => [order.join(',') || '(default)', order]))('order %s', async (_name, order) => {
      const query = order.map((o) => `order=${o}`).join('&');
      const { ids, pages } = await all(query, 7);
      const expected = [...live()].sort(compare(fullOrder(order)));
      expect(ids).toEqual(expected.map((m) => m.id));
      expect(pages).toBe(Math.ceil(expected.length / 7));
    });

    it('accepts order as a comma-separated list and as an array', async () => {
      const a = await list('order=status,-created_at&limit=20');
      const b = await list('order[]=status&order[]=-created_at&limit=20');
      const expected = [...live()].sort(compare(fullOrder(['status', '-created_at']))).slice(0, 20).map((m) => m.id);
      expect(a.body.data.map((m: Row) => m.id)).toEqual(expected);
      expect(b.body.data.map((m: Row) => m.id)).toEqual(expected);
    });

    it('neither skips nor repeats a member when members are added between pages', async () => {
      const seen: string[] = [];
      let res = await list('limit=25');
      seen.push(...res.body.data.map((m: Row) => m.id));
      const added = await Promise.all(Array.from({ length: 5 }, (_, i) => enrol(programId, `late-${i}`)));
      for (const r of added) expect(r.status).toBe(200);
      while (res.body.cursor) {
        res = await list(`limit=25&cursor=${res.body.cursor.next}`);
        expect(res.status).toBe(200);
        seen.push(...res.body.data.map((m: Row) => m.id));
      }
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.sort()).toEqual(live().map((m) => m.id).sort());
      await db.query(`UPDATE members SET status = 'DELETED' WHERE id = ANY($1)`, [added.map((r) => r.body.id)]);
    });

    it('keeps the position when the next page asks for another limit', async () => {
      const first = await list('limit=5');
      const next = await list(`limit=12&cursor=${first.body.cursor.next}`);
      const expected = [...live()].sort(compare(fullOrder([]))).slice(5, 17).map((m) => m.id);
      expect(next.body.data.map((m: Row) => m.id)).toEqual(expected);
    });
  });

  describe('filters', () => {
    const ids = (res: { body: { data: Row[] } }) => res.body.data.map((m) => m.id).sort();
    const expectIds = (matching: (m: Row) => boolean) => live().filter(matching).map((m) => m.id).sort();
    const f = (field: string, op: string, value = '') => `filters[${field}][conditions][${op}]=${encodeURIComponent(value)}`;

    it('id: $is, $is_not, $in, $not_in', async () => {
      const [a, b, c] = live();
      expect(ids(await list(`limit=100&${f('id', '$is', a.id)}`))).toEqual([a.id]);
      const notA = await all(f('id', '$is_not', a.id), 100);
      expect(notA.ids.sort()).toEqual(expectIds((m) => m.id !== a.id));
      expect(ids(await list(`limit=100&filters[id][conditions][$in][]=${a.id}&filters[id][conditions][$in][]=${b.id}`))).toEqual([a.id, b.id].sort());
      expect(ids(await list(`limit=100&${f('id', '$in', `${b.id},${c.id}`)}`))).toEqual([b.id, c.id].sort());
      const notIn = await all(f('id', '$not_in', `${a.id},${b.id},${c.id}`), 100);
      expect(notIn.ids.sort()).toEqual(expectIds((m) => ![a.id, b.id, c.id].includes(m.id)));
    });

    it('accepts $in with 100 values (more than the query parser keeps as an array)', async () => {
      const hundred = live().slice(0, 100).map((m) => m.id);
      const query = hundred.map((id, i) => `filters[id][conditions][$in][${i}]=${id}`).join('&');
      const res = await list(`limit=100&${query}`);
      expect(res.status).toBe(200);
      expect(ids(res)).toEqual([...hundred].sort());
    });

    it('status: $is, $is_not, $in, $not_in', async () => {
      expect((await all(f('status', '$is', 'INACTIVE'), 100)).ids.sort()).toEqual(expectIds((m) => m.status === 'INACTIVE'));
      expect((await all(f('status', '$is_not', 'INACTIVE'), 100)).ids.sort()).toEqual(expectIds((m) => m.status === 'ACTIVE'));
      expect((await all(f('status', '$in', 'ACTIVE,INACTIVE'), 100)).ids.sort()).toEqual(expectIds(() => true));
      expect((await all(f('status', '$not_in', 'ACTIVE'), 100)).ids.sort()).toEqual(expectIds((m) => m.status === 'INACTIVE'));
    });

    it('customer_id: $is, $is_not, $in, $not_in', async () => {
      const [a, b] = live();
      expect(ids(await list(f('customer_id', '$is', a.customer_id)))).toEqual([a.id]);
      expect(ids(await list(f('customer_id', '$in', `${a.customer_id},${b.customer_id}`)))).toEqual([a.id, b.id].sort());
      expect((await all(f('customer_id', '$is_not', a.customer_id), 100)).ids.sort()).toEqual(expectIds((m) => m.id !== a.id));
      expect((await all(f('customer_id', '$not_in', `${a.customer_id},${b.customer_id}`), 100)).ids.sort()).toEqual(expectIds((m) => m.id !== a.id && m.id !== b.id));
    });

    it('created_at: $before, $after, $is (instant and day), $more_than, $less_than, $has_value, $is_unknown', async () => {
      const middle = new Date(BASE + 20_000).toISOString();
      expect((await all(f('created_at', '$before', middle), 100)).ids.sort()).toEqual(expectIds((m) => Date.parse(m.created_at) < BASE + 20_000));
      expect((await all(f('created_at', '$after', middle), 100)).ids.sort()).toEqual(expectIds((m) => Date.parse(m.created_at) > BASE + 20_000));
      expect(ids(await list(f('created_at', '$is', middle)))).toEqual(expectIds((m) => Date.parse(m.created_at) === BASE + 20_000));
      expect(expectIds((m) => Date.parse(m.created_at) === BASE + 20_000).length).toBeGreaterThan(1);
      expect((await all(f('created_at', '$is', '2026-01-01'), 100)).ids.sort()).toEqual(expectIds(() => true));
      expect((await list(f('created_at', '$is', '2026-01-02'))).body.data).toEqual([]);
      // Every member was created on 2026-01-01, more than 30 days before today (2026-11).
      expect((await all(f('created_at', '$more_than', '30'), 100)).ids.sort()).toEqual(expectIds(() => true));
      expect((await list(f('created_at', '$less_than', '30'))).body.data).toEqual([]);
      expect((await all(f('created_at', '$has_value'), 100)).ids.sort()).toEqual(expectIds(() => true));
      expect((await list(f('created_at', '$is_unknown'))).body.data).toEqual([]);
    });

    it('two conditions on one field both hold (a range)', async () => {
      const query = `${f('created_at', '$after', new Date(BASE + 10_000).toISOString())}&${f('created_at', '$before', new Date(BASE + 15_000).toISOString())}`;
      expect((await all(query, 100)).ids.sort()).toEqual(expectIds((m) => Date.parse(m.created_at) > BASE + 10_000 && Date.parse(m.created_at) < BASE + 15_000));
    });

    it('combines fields with AND by default, and with OR on request', async () => {
      const [a, b] = live().filter((m) => m.status === 'ACTIVE');
      const cutoff = new Date(BASE + 30_000).toISOString();
      const and = await all(`${f('status', '$is', 'INACTIVE')}&${f('created_at', '$after', cutoff)}`, 10);
      expect(and.ids.sort()).toEqual(expectIds((m) => m.status === 'INACTIVE' && Date.parse(m.created_at) > BASE + 30_000));
      const explicitAnd = await all(`filters[junction]=AND&${f('status', '$is', 'INACTIVE')}&${f('created_at', '$after', cutoff)}`, 10);
      expect(explicitAnd.ids.sort()).toEqual(and.ids.sort());
      const or = await all(`filters[junction]=OR&${f('status', '$is', 'INACTIVE')}&${f('customer_id', '$in', `${a.customer_id},${b.customer_id}`)}`, 9);
      expect(or.ids.sort()).toEqual(expectIds((m) => m.status === 'INACTIVE' || m.id === a.id || m.id === b.id));
    });

    it('pages through a filtered and ordered list in order', async () => {
      const { ids: paged } = await all(`order=-status&order=customer_id&${f('created_at', '$before', new Date(BASE + 40_000).toISOString())}`, 6);
      const expected = live()
        .filter((m) => Date.parse(m.created_at) < BASE + 40_000)
        .sort(compare(fullOrder(['-status', 'customer_id'])))
        .map((m) => m.id);
      expect(paged).toEqual(expected);
    });
  });

  describe('bad parameters: 400 invalid_query_params naming the parameter', () => {
    const cases: [string, string, RegExp][] = [
      ['limit 0', 'limit=0', /limit/],
      ['limit 101', 'limit=101', /limit/],
      ['limit not a number', 'limit=ten', /limit/],
      ['unknown order value', 'order=name', /order/],
      ['one field in both directions', 'order=status&order=-status', /status both ascending and descending/],
      ['one field twice', 'order=created_at,created_at', /created_at twice/],
      ['unknown filter field', 'filters[email][conditions][$is]=x', /filters\[email\]/],
      ['unknown condition', 'filters[status][conditions][$starts_with]=A', /\$starts_with/],
      ['date condition on a value field', 'filters[id][conditions][$before]=2026-01-01', /\$before/],
      ['bad date', 'filters[created_at][conditions][$after]=yesterday', /created_at.*\$after/],
      ['impossible date', 'filters[created_at][conditions][$before]=2026-02-30T00:00:00Z', /\$before/],
      ['negative days', 'filters[created_at][conditions][$more_than]=-3', /\$more_than/],
      ['status not listable', 'filters[status][conditions][$is]=DELETED', /ACTIVE or INACTIVE/],
      ['id of another shape', 'filters[id][conditions][$is]=cust_123', /lmbr_/],
      ['customer id of another shape', 'filters[customer_id][conditions][$in]=lmbr_12', /cust_/],
      ['$is with two values', 'filters[status][conditions][$is]=ACTIVE,INACTIVE', /exactly one value/],
      ['$in with too many statuses', Array.from({ length: 11 }, () => 'filters[status][conditions][$in][]=ACTIVE').join('&'), /1 to 10/],
      ['unknown junction', 'filters[junction]=XOR', /junction/],
      ['field without conditions', 'filters[status][$is]=ACTIVE', /filters\[status\]/],
      ['empty conditions', 'filters[status][conditions]=', /filters\[status\]\[conditions\]/],
      ['filters not an object', 'filters=status', /filters/],
      ['presence check with a value', 'filters[created_at][conditions][$has_value]=yes', /takes no value/],
      ['unknown parameter', 'page=2', /page/],
    ];
    it.each(cases)('%s', async (_name, query, detail) => {
      const res = await list(query);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 400, key: 'invalid_query_params', message: 'Invalid query params' });
      expect(res.body.details).toMatch(detail);
      expect(res.body.request_id).toMatch(REQUEST_ID);
    });

    it('a programId of the wrong shape', async () => {
      const res = await list('', 'camp_123');
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 400, key: 'invalid_query_params', details: 'programId must match ^lprg_[a-f0-9]+$' });
    });
  });

  describe('cursors: 400 invalid_or_expired_cursor unless untouched, unexpired and used with the same query', () => {
    let next: string;
    const filtered = 'filters[status][conditions][$is]=ACTIVE';
    beforeAll(async () => {
      next = (await list(`limit=3&${filtered}&order=customer_id`)).body.cursor.next;
    });
    const expectInvalid = async (query: string, program = programId, who: TestProject = stack.a) => {
      const res = await list(query, program, who);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 400, key: 'invalid_or_expired_cursor', message: 'Invalid or expired cursor' });
      expect(res.body.request_id).toMatch(REQUEST_ID);
    };

    it('works with the same filters and order', async () => {
      const res = await list(`limit=3&${filtered}&order=customer_id&cursor=${next}`);
      expect(res.status).toBe(200);
      const expected = live().filter((m) => m.status === 'ACTIVE').sort(compare(fullOrder(['customer_id']))).slice(3, 6);
      expect(res.body.data.map((m: Row) => m.id)).toEqual(expected.map((m) => m.id));
    });

    it('rejects a tampered cursor', async () => {
      const i = next.length - 40;
      const flipped = `${next.slice(0, i)}${next[i] === 'a' ? 'b' : 'a'}${next.slice(i + 1)}`;
      await expectInvalid(`${filtered}&order=customer_id&cursor=${flipped}`);
      await expectInvalid(`${filtered}&order=customer_id&cursor=${next.slice(0, -2)}`);
      await expectInvalid(`${filtered}&order=customer_id&cursor=lcrsprg_${next.slice(8)}`);
      await expectInvalid(`${filtered}&order=customer_id&cursor=not-a-cursor`);
      await expectInvalid(`${filtered}&order=customer_id&cursor=`);
    });

    it('rejects a cursor used with other filters or another order', async () => {
      await expectInvalid(`order=customer_id&cursor=${next}`);
      await expectInvalid(`filters[status][conditions][$is]=INACTIVE&order=customer_id&cursor=${next}`);
      await expectInvalid(`${filtered}&cursor=${next}`);
      await expectInvalid(`${filtered}&order=-customer_id&cursor=${next}`);
    });

    it('rejects a cursor of another program or another project', async () => {
      await expectInvalid(`${filtered}&order=customer_id&cursor=${next}`, secondProgramId);
      await expectInvalid(`${filtered}&order=customer_id&cursor=${next}`, otherProgramId, stack.b);
    });

    it('rejects an expired cursor', async () => {
      const now = Date.now();
      const clock = jest.spyOn(Date, 'now').mockReturnValue(now + 61 * 60_000);
      try {
        await expectInvalid(`${filtered}&order=customer_id&cursor=${next}`);
      } finally {
        clock.mockRestore();
      }
    });
  });

  describe('programs that are not there', () => {
    it('an unknown program is 404 with the standard body', async () => {
      const res = await list('', 'lprg_0123456789abcdef01');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        code: 404,
        key: 'not_found',
        message: 'Resource not found',
        details: 'Cannot find program with id lprg_0123456789abcdef01',
        request_id: expect.stringMatching(REQUEST_ID),
        resource_id: 'lprg_0123456789abcdef01',
        resource_type: 'program',
      });
    });

    it('another project\'s program is 404, and its members are never listed', async () => {
      const res = await list('', otherProgramId);
      expect(res.status).toBe(404);
      const theirs = await list('', otherProgramId, stack.b);
      expect(theirs.body.data).toHaveLength(1);
      const { ids } = await all('', 100);
      expect(ids).not.toContain(theirs.body.data[0].id);
    });

    it('needs the application key', async () => {
      const res = await stack.http().get(`/v2/loyalties/programs/${programId}/members`);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ code: 401, key: 'unauthorized', message: 'Unauthorized' });
    });
  });
});
