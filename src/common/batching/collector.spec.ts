import { until } from '../../../test/support/until.js';
import { Collector, type CollectorLimits } from './collector.js';

/** A run the test ends by hand (`finish`), recording each batch it was given; an item 'bad' fails any batch it is in. */
function controlled(limits: Partial<CollectorLimits> = {}, split = (_error: unknown) => true) {
  const batches: string[][] = [];
  const ends: (() => void)[] = [];
  const collector = new Collector<string, string>(
    (items) => {
      batches.push(items);
      return new Promise((resolve, reject) =>
        ends.push(() => (items.includes('bad') ? reject(new Error(`batch ${items.join(',')} failed`)) : resolve(items.map((item) => `${item}!`)))),
      );
    },
    split,
    { items: 10, bytes: 1_000, inFlight: 1, waitMs: 60_000, ...limits },
    () => new Error('waited too long'),
  );
  const finish = async () => {
    await until(() => ends.length > 0);
    ends.shift()?.();
  };
  const submit = (key: string, item: string, bytes = 1, conflict = item) => collector.submit(key, item, { bytes, conflict });
  return { batches, finish, submit };
}


describe('Collector', () => {
  it('runs a lone item at once, and the items that came meanwhile together in the next batch', async () => {
    const { batches, finish, submit } = controlled();
    const first = submit('p', 'a');
    expect(batches).toEqual([['a']]);
    const later = ['b', 'c', 'd'].map((item) => submit('p', item));
    expect(batches).toHaveLength(1);
    await finish();
    expect(await first).toBe('a!');
    await finish();
    expect(await Promise.all(later)).toEqual(['b!', 'c!', 'd!']);
    expect(batches).toEqual([['a'], ['b', 'c', 'd']]);
  });

  it('keeps a batch within its items and bytes, and never puts two items of one conflict key in one batch', async () => {
    const { batches, finish, submit } = controlled({ items: 3, bytes: 10 });
    const all = [submit('p', 'first')];
    all.push(submit('p', 'a', 1, 'x'), submit('p', 'b', 1, 'x'), submit('p', 'c', 10), submit('p', 'd'), submit('p', 'e'), submit('p', 'f'), submit('p', 'big', 50));
    for (let i = 0; i < 5; i += 1) await finish();
    expect(await Promise.all(all)).toEqual(['first!', 'a!', 'b!', 'c!', 'd!', 'e!', 'f!', 'big!']);
    // a and b share a conflict key; c (10 bytes) passes 10 beside any other; a batch holds 3 at most; big (50 bytes) goes alone.
    expect(batches).toEqual([['first'], ['a', 'd', 'e'], ['b', 'f'], ['c'], ['big']]);
  });

  it('runs the items of a failed batch again one by one: the bad one fails alone, its neighbours succeed', async () => {
    const { batches, finish, submit } = controlled();
    const first = submit('p', 'first');
    const settled = Promise.allSettled(['a', 'bad', 'c'].map((item) => submit('p', item)));
    for (let i = 0; i < 5; i += 1) await finish();
    await first;
    const outcomes = await settled;
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message))).toEqual(['a!', 'batch bad failed', 'c!']);
    expect(batches).toEqual([['first'], ['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);
  });

  it('gives every item the error of a failed batch when it belongs to the moment, not to the items', async () => {
    const { batches, finish, submit } = controlled({}, () => false);
    const first = submit('p', 'first');
    const settled = Promise.allSettled(['a', 'bad'].map((item) => submit('p', item)));
    await finish();
    await finish();
    await first;
    expect((await settled).map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(batches).toEqual([['first'], ['a', 'bad']]);
  });

  it('refuses an item that no batch took within waitMs; the others go on', async () => {
    const { batches, finish, submit } = controlled({ waitMs: 50 });
    const first = submit('p', 'first');
    const late = submit('p', 'late');
    await expect(late).rejects.toThrow('waited too long');
    const next = submit('p', 'next');
    await finish();
    expect(await first).toBe('first!');
    await finish();
    expect(await next).toBe('next!');
    expect(batches).toEqual([['first'], ['next']]);
  });

  it('runs keys independently, and up to inFlight batches of one key at once', async () => {
    const { batches, finish, submit } = controlled({ inFlight: 2 });
    const all = [submit('p', 'a'), submit('q', 'b'), submit('p', 'c'), submit('p', 'd'), submit('p', 'e')];
    // p's first two items start a batch each (two in flight), q's its own; d and e wait for one of p's.
    expect(batches).toEqual([['a'], ['b'], ['c']]);
    for (let i = 0; i < 4; i += 1) await finish();
    expect(await Promise.all(all)).toEqual(['a!', 'b!', 'c!', 'd!', 'e!']);
    expect(batches).toEqual([['a'], ['b'], ['c'], ['d', 'e']]);
  });
});
