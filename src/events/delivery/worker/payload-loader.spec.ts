import type { EventPayloadRepository, PayloadRow } from './event-payload.repository.js';
import { LARGE_EVENT_BYTES, PayloadBudget, PayloadLoader, type PayloadRequest } from './payload-loader.js';

/**
 * The loader's own logic, with a stand-in for the statement: which events go in which load, and what a
 * failure does to the others. The statement itself (sizes, room) runs against PostgreSQL in
 * test/e2e/webhooks-large-events.e2e-spec.ts.
 */
class Events {
  readonly loads: string[][] = [];
  constructor(
    private readonly sizes: Record<string, number>,
    private readonly fail: (ids: string[]) => Error | null = () => null,
  ) {}

  load = async (_lane: number, ids: string[], maxBytes: number): Promise<PayloadRow[]> => {
    this.loads.push(ids);
    const error = this.fail(ids);
    if (error) throw error;
    return ids.filter((id) => id in this.sizes).map((id) => ({ id, bytes: this.sizes[id], data: this.sizes[id] <= maxBytes ? `{"id":"${id}"}` : null }));
  };
}

const request = (eventId: string, storedBytes = 1_000): PayloadRequest => ({ eventId, storedBytes, reserved: storedBytes, notAfter: Date.now() + 60_000 });
const loaderOf = (events: Events, max = 16 * 1024 * 1024) => new PayloadLoader(events as unknown as EventPayloadRepository, new PayloadBudget(max));

describe('PayloadLoader', () => {
  it("reads a claim's small events in one load, each event once, and large ones each alone", async () => {
    const events = new Events({ ev_1: 1_000, ev_2: 1_000, ev_big1: 2 * LARGE_EVENT_BYTES, ev_big2: 2 * LARGE_EVENT_BYTES });
    const payloads = await loaderOf(events).load([request('ev_1'), request('ev_big1', 2 * LARGE_EVENT_BYTES), request('ev_2'), request('ev_1'), request('ev_big2', 2 * LARGE_EVENT_BYTES)]);
    expect(payloads.map((p) => ('data' in p ? p.data : p))).toEqual(['{"id":"ev_1"}', '{"id":"ev_big1"}', '{"id":"ev_2"}', '{"id":"ev_1"}', '{"id":"ev_big2"}']);
    expect(events.loads).toEqual(expect.arrayContaining([['ev_1', 'ev_2'], ['ev_big1'], ['ev_big2']]));
    expect(events.loads).toHaveLength(3);
  });

  it('a load that fails is split until the event that fails is alone: the others are read', async () => {
    const sizes = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`ev_${i}`, 1_000]));
    const events = new Events(sizes, (ids) => (ids.includes('ev_6') ? Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }) : null));
    const payloads = await loaderOf(events).load(Object.keys(sizes).map((id) => request(id)));
    expect(payloads.filter((p) => 'data' in p)).toHaveLength(8);
    expect(payloads[6]).toEqual({ failed: 'canceling statement due to statement timeout' });
    expect(events.loads.filter((ids) => ids.includes('ev_6')).at(-1)).toEqual(['ev_6']);
  });

  it('a failure that is not the events\' own (PostgreSQL unreachable) fails none of them: all are read later', async () => {
    const events = new Events({ ev_1: 1_000, ev_2: 1_000 }, () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
    expect(await loaderOf(events).load([request('ev_1'), request('ev_2')])).toEqual([{ later: true }, { later: true }]);
    expect(events.loads).toEqual([['ev_1', 'ev_2']]);
  });

  it('an event stored larger than the budget is never read; one whose text is larger is not returned; one not found fails', async () => {
    const events = new Events({ ev_stored: 3 * 1024 * 1024, ev_text: 3 * 1024 * 1024 });
    const payloads = await loaderOf(events, 2 * 1024 * 1024).load([request('ev_stored', 3 * 1024 * 1024), request('ev_text', 500_000), request('ev_gone')]);
    expect(payloads).toEqual([{ tooLarge: 3 * 1024 * 1024 }, { tooLarge: 3 * 1024 * 1024 }, { failed: 'the event is gone' }]);
    expect(events.loads.flat()).not.toContain('ev_stored');
  });

  it('a request whose load would start after its time is not read', async () => {
    const events = new Events({ ev_1: 1_000 });
    expect(await loaderOf(events).load([{ ...request('ev_1'), notAfter: Date.now() - 1 }])).toEqual([{ later: true }]);
    expect(events.loads).toEqual([]);
  });
});
