import { internalCause } from '../../src/events/recording/event-recording.js';
import { ActivationService } from '../../src/points/pending/activation.service.js';
import { PointsModule } from '../../src/points/points.module.js';
import { waitFor } from '../support/harness.js';
import { unique } from '../support/points.js';
import { enrolCustomer, payOrder, pointsProgram } from '../support/service-points.js';
import { useServices } from '../support/services.js';

/** One "day" of pending points lasts this long here: an entry of one day comes due within the test. */
const DAY_MS = 300;
const ACTIVATED = 'customer.voucher.loyalty_card.pending_points.activated';

describe('ActivationService on PostgreSQL (no worker, no HTTP)', () => {
  const services = useServices({ imports: [PointsModule], config: { PENDING_POINTS_DAY_MS: String(DAY_MS) } });
  const { db } = services;

  /** A member with one paid order under one pending rule of `days`; the card and the entry. */
  async function pendingEntry(days: number, points: number) {
    const project = await services.project();
    const { programId } = await pointsProgram(services, project, [{ points, days }]);
    const customer = unique('activation-holder');
    const member = await enrolCustomer(services, project, programId, customer);
    const order = await payOrder(services, project, { source_id: unique('activation-order'), customer });
    const [entry] = await db.entries({ orderId: order.id });
    return { project, card: member.cards[0], entry };
  }

  it('activates the due entries: the card credited, one ledger row and one event per entry; entries not due stay PENDING', async () => {
    const due = await pendingEntry(1, 40);
    const later = await pendingEntry(90, 7);
    expect([due.entry.status, later.entry.status]).toEqual(['PENDING', 'PENDING']);
    expect(await db.card(due.card.code)).toMatchObject({ balance: 0, points: 0, pending_points: 40 });
    await waitFor(async () => ((await db.count('SELECT 1 FROM loyalty_pending_points WHERE id = $1 AND activates_at <= now()', [due.entry.id])) === 1 ? true : undefined));

    const result = await services.get(ActivationService).activate({ ids: [], extraDue: 1_000, operation: 'AUTOMATIC', cause: internalCause(), trigger: 'sweep' });
    const activatedIds = result.activated.map((a) => a.id);
    expect(activatedIds).toContain(due.entry.id);
    expect(activatedIds).not.toContain(later.entry.id);
    expect(result.activated.find((a) => a.id === due.entry.id)).toMatchObject({ points: 40, balance: 40, total: 40, pending: 0 });

    expect((await db.entries({ cardCode: due.card.code })).map((e) => e.status)).toEqual(['ACTIVATED']);
    expect((await db.entries({ cardCode: later.card.code })).map((e) => e.status)).toEqual(['PENDING']);
    expect(await db.card(due.card.code)).toMatchObject({ balance: 40, points: 40, pending_points: 0 });
    expect(await db.card(later.card.code)).toMatchObject({ balance: 0, points: 0, pending_points: 7 });
    const ledger = await db.query<{ type: string; points: number; balance_after: number }>('SELECT type, points::int AS points, balance_after::int AS balance_after FROM voucher_transactions WHERE pending_points_id = $1', [due.entry.id]);
    expect(ledger).toEqual([{ type: 'PENDING_POINTS_ACTIVATION', points: 40, balance_after: 40 }]);
    const events = await db.query<{ project_id: string; data: { pending_points: { id: string } } }>("SELECT project_id, data FROM events WHERE type = $1 AND data->'pending_points'->>'id' = $2", [ACTIVATED, due.entry.id]);
    expect(events).toHaveLength(1);
    expect(events[0].project_id).toBe(due.project.id);
    expect(await db.count("SELECT 1 FROM events WHERE data->'pending_points'->>'id' = $1 AND type = $2", [later.entry.id, ACTIVATED])).toBe(0);
  });

  it('activates an entry once: asked again (a job after the sweep), it credits nothing more', async () => {
    const { card, entry } = await pendingEntry(90, 15);
    const activation = services.get(ActivationService);
    const first = await activation.activate({ ids: [entry.id], extraDue: 0, operation: 'AUTOMATIC', cause: internalCause() });
    expect(first.activated.map((a) => a.id)).toEqual([entry.id]);
    const again = await activation.activate({ ids: [entry.id], extraDue: 0, operation: 'AUTOMATIC', cause: internalCause() });
    expect(again).toEqual({ activated: [], deferred: [], setAside: [] });
    expect(await db.card(card.code)).toMatchObject({ balance: 15, points: 15, pending_points: 0 });
    expect(await db.count('SELECT 1 FROM voucher_transactions WHERE pending_points_id = $1', [entry.id])).toBe(1);
    expect(await db.count("SELECT 1 FROM events WHERE type = $1 AND data->'pending_points'->>'id' = $2", [ACTIVATED, entry.id])).toBe(1);
  });
});
