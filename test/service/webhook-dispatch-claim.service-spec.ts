import { DatabaseKitModule } from '../../src/database/database-kit.module.js';
import { type DispatchCaps, DispatchRepository, INLINE_MAX_STORED_BYTES } from '../../src/events/delivery/worker/dispatch.repository.js';
import { EventsModule } from '../../src/events/events.module.js';
import { dueDeliveryOf } from '../support/deliveries.js';
import { useServices } from '../support/services.js';

/**
 * The dispatcher's claim (DispatchRepository.recordAndClaimDue) brings the payloads of small events with the
 * deliveries it claims (issue 40): those stored in at most INLINE_MAX_STORED_BYTES, while their texts in id
 * order fit the claim's free bytes. Larger events, and small ones past the room, are read apart (no `inline`).
 */
describe('the dispatcher claim: small payloads inline, within the stored bound and the free bytes', () => {
  const services = useServices({ imports: [DatabaseKitModule, EventsModule], providers: [DispatchRepository], config: { WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32' } });
  const { db } = services;
  const url = 'http://127.0.0.1:9/claim';
  const caps = (freeBytes: number): DispatchCaps => ({ perTarget: 10, maxShare: 100, slots: 100, initialWindow: 100, freeBytes, maxBytes: 64 * 1024 * 1024 });
  const load = () => ({ targets: new Map<string, number>(), projects: new Map<string, number>(), caps: new Map<string, number>() });
  const claim = async (freeBytes: number) => (await services.get(DispatchRepository).recordAndClaimDue([], 20, 60_000, caps(freeBytes), load(), 1, '')).claimed;
  const text = async (eventId: string) => (await db.query<{ text: string }>('SELECT data::text AS text FROM events WHERE id = $1', [eventId]))[0].text;
  const stored = async (eventId: string) => (await db.query<{ stored: number }>('SELECT pg_column_size(data) AS stored FROM events WHERE id = $1', [eventId]))[0].stored;
  const release = (ids: string[]) => db.query('UPDATE webhook_deliveries SET lease_until = NULL WHERE id = ANY($1)', [ids]);

  it('inlines a small event, reads a large one apart, and stops inlining past the free bytes', async () => {
    const small = [await dueDeliveryOf(services, url), await dueDeliveryOf(services, url)].sort((a, b) => a.deliveryId.localeCompare(b.deliveryId));
    const large = await dueDeliveryOf(services, url, 2 * INLINE_MAX_STORED_BYTES);
    const largeStored = await stored(large.eventId);
    expect(largeStored).toBeGreaterThan(INLINE_MAX_STORED_BYTES);

    const all = await claim(64 * 1024 * 1024);
    expect(all.map((d) => d.id).sort()).toEqual([...small.map((s) => s.deliveryId), large.deliveryId].sort());
    const byId = new Map(all.map((d) => [d.id, d]));
    for (const s of small) {
      const expected = await text(s.eventId);
      expect(byId.get(s.deliveryId)?.event?.inline).toEqual({ data: expected, bytes: Buffer.byteLength(expected) });
    }
    expect(byId.get(large.deliveryId)?.event?.inline).toBeUndefined();
    expect(byId.get(large.deliveryId)?.event?.storedBytes).toBe(largeStored);

    // Free bytes for both small events by their stored sizes (the claim takes both; the large one stays
    // leased), but for only the first text in id order: the second comes without its payload.
    await release(small.map((s) => s.deliveryId));
    const first = Buffer.byteLength(await text(small[0].eventId));
    const room = Math.max(first, (await stored(small[0].eventId)) + 1);
    expect(room).toBeLessThan(2 * first);
    const tight = new Map((await claim(room)).map((d) => [d.id, d]));
    expect([...tight.keys()].sort()).toEqual(small.map((s) => s.deliveryId));
    expect(tight.get(small[0].deliveryId)?.event?.inline?.bytes).toBe(first);
    expect(tight.get(small[1].deliveryId)?.event?.inline).toBeUndefined();
  });
});
