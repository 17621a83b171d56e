import { internalCause } from '../../src/events/recording/event-recording.js';
import { BalanceService } from '../../src/points/balance/balance.service.js';
import { BalanceChangeDto } from '../../src/points/balance/dto/balance.dto.js';
import { CreateEarningRuleDto } from '../../src/points/earning/dto/earning-rule.dto.js';
import { EarningRulesService } from '../../src/points/earning/earning-rules.service.js';
import { ActivationService } from '../../src/points/pending/activation.service.js';
import { PointsModule } from '../../src/points/points.module.js';
import { waitFor } from '../support/harness.js';
import { idMicros, PointsDb, unique } from '../support/points.js';
import { enrolCustomer, payOrder, pointsProgram } from '../support/service-points.js';
import { body, useServices } from '../support/services.js';

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

    const before = Date.now() * 1000;
    const result = await services.get(ActivationService).activate({ ids: [], extraDue: 1_000, operation: 'AUTOMATIC', cause: internalCause(), trigger: 'sweep' });
    const after = Date.now() * 1000;
    const activatedIds = result.activated.map((a) => a.id);
    expect(activatedIds).toContain(due.entry.id);
    expect(activatedIds).not.toContain(later.entry.id);
    expect(result.activated.find((a) => a.id === due.entry.id)).toMatchObject({ points: 40, balance: 40, total: 40, pending: 0 });

    expect((await db.entries({ cardCode: due.card.code })).map((e) => e.status)).toEqual(['ACTIVATED']);
    expect((await db.entries({ cardCode: later.card.code })).map((e) => e.status)).toEqual(['PENDING']);
    expect(await db.card(due.card.code)).toMatchObject({ balance: 40, points: 40, pending_points: 0 });
    expect(await db.card(later.card.code)).toMatchObject({ balance: 0, points: 0, pending_points: 7 });
    const ledger = await db.query<{ id: string; type: string; points: number; balance_after: number }>('SELECT id, type, points::int AS points, balance_after::int AS balance_after FROM voucher_transactions WHERE pending_points_id = $1', [due.entry.id]);
    expect(ledger).toEqual([{ id: expect.any(String), type: 'PENDING_POINTS_ACTIVATION', points: 40, balance_after: 40 }]);
    const events = await db.query<{ id: string; project_id: string; data: { pending_points: { id: string } } }>("SELECT id, project_id, data FROM events WHERE type = $1 AND data->'pending_points'->>'id' = $2", [ACTIVATED, due.entry.id]);
    expect(events).toHaveLength(1);
    expect(events[0].project_id).toBe(due.project.id);
    // Both ids made in the statement grow with time (loyalty_time_id): the moment they carry is the statement's.
    for (const made of [idMicros(ledger[0].id, 'vtx_'), idMicros(events[0].id, 'evcus_')]) {
      expect(made).toBeGreaterThanOrEqual(before - 5_000);
      expect(made).toBeLessThanOrEqual(after + 5_000);
    }
    expect(await db.count("SELECT 1 FROM events WHERE data->'pending_points'->>'id' = $1 AND type = $2", [later.entry.id, ACTIVATED])).toBe(0);
  });

  it('activates an entry once: asked again (a job after the sweep), it credits nothing more', async () => {
    const { card, entry } = await pendingEntry(90, 15);
    const activation = services.get(ActivationService);
    const first = await activation.activate({ ids: [entry.id], extraDue: 0, operation: 'AUTOMATIC', cause: internalCause() });
    expect(first.activated.map((a) => a.id)).toEqual([entry.id]);
    const again = await activation.activate({ ids: [entry.id], extraDue: 0, operation: 'AUTOMATIC', cause: internalCause() });
    expect(again).toEqual({ activated: [], setAside: [], busy: 0 });
    expect(await db.card(card.code)).toMatchObject({ balance: 15, points: 15, pending_points: 0 });
    expect(await db.count('SELECT 1 FROM voucher_transactions WHERE pending_points_id = $1', [entry.id])).toBe(1);
    expect(await db.count("SELECT 1 FROM events WHERE type = $1 AND data->'pending_points'->>'id' = $2", [ACTIVATED, entry.id])).toBe(1);
  });

  it('a cohort job drains every due entry in batches, asks first for a second lane when more than a batch is due, leaves a busy card for later, and ends at once when nothing is due', async () => {
    const entries = [];
    for (let i = 0; i < 6; i += 1) entries.push(await pendingEntry(1, 10 + i));
    const ids = entries.map((e) => e.entry.id);
    await waitFor(async () => ((await db.count("SELECT 1 FROM loyalty_pending_points WHERE id = ANY($1) AND activates_at <= now()", [ids])) === 6 ? true : undefined));
    const activation = services.get(ActivationService);
    // Another transaction holds the last entry's card (an order on it, say): never waited for.
    const holder = new PointsDb();
    await holder.connect();
    let lanes = 0;
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM vouchers WHERE id = $1 FOR UPDATE', [entries[5].card.id]);
      const drained = await activation.drainDue(2, internalCause(), async () => void (lanes += 1));
      expect(drained).toBeGreaterThanOrEqual(5);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    expect(lanes).toBe(1);
    const status = async () => (await db.query<{ id: string; status: string }>('SELECT id, status FROM loyalty_pending_points WHERE id = ANY($1) ORDER BY id', [ids])).map((r) => [r.id, r.status]);
    expect(await status()).toEqual(ids.map((id, i) => [id, i === 5 ? 'PENDING' : 'ACTIVATED']).sort());
    // The card free again, the next cohort's job takes it; a drain that finds less than a batch asks for no lane.
    expect(await activation.drainDue(2, internalCause(), async () => void (lanes += 1))).toBe(1);
    expect(lanes).toBe(1);
    expect((await status()).every(([, s]) => s === 'ACTIVATED')).toBe(true);
    // Nothing due (a cohort another project's job of the same moment drained): it looks, and that is all.
    expect(await activation.drainDue(2, internalCause(), async () => void (lanes += 1))).toBe(0);
    expect(lanes).toBe(1);
    expect(await db.count("SELECT 1 FROM events WHERE type = $1 AND data->'pending_points'->>'id' = ANY($2::text[])", [ACTIVATED, ids])).toBe(6);
    for (const [i, { card }] of entries.entries()) expect(await db.card(card.code)).toMatchObject({ balance: 10 + i, pending_points: 0 });
    expect(await db.count('SELECT 1 FROM voucher_transactions WHERE pending_points_id = ANY($1)', [ids])).toBe(6);
  });

  it("shows each entry's card with its next expiration right after it, counting the buckets of the batch's earlier entries", async () => {
    const project = await services.project();
    const { campaignId, programId } = await pointsProgram(services, project, []);
    // Three pending rules of one order: points valid 12 months, 6 months, and for ever (no expiration rules).
    const rule = (points: number, months?: number) =>
      body(CreateEarningRuleDto, { loyalty: { type: 'FIXED', points }, pending_points: { period_type: 'DAY', period_value: 90 }, ...(months ? { expiration_rules: { period_type: 'MONTH', period_value: months } } : {}) });
    await services.get(EarningRulesService).create(project, campaignId, [await rule(10, 12), await rule(7, 6), await rule(5)]);
    const customer = unique('next-expiration');
    const { cards } = await enrolCustomer(services, project, programId, customer);
    // Points the card already has, expiring in about 9 months: between the two rules' days.
    const nineMonths = new Date(Date.now() + 270 * 86_400_000).toISOString().slice(0, 10);
    await services.get(BalanceService).change(project, null, cards[0].code, await body(BalanceChangeDto, { points: 3, expiration_type: 'CUSTOM_DATE', expiration_date: nineMonths }), undefined);
    const order = await payOrder(services, project, { source_id: unique('next-expiration-order'), customer });
    const entries = await db.entries({ orderId: order.id }); // in id order: the order the batch applies them in

    const done = await services.get(ActivationService).activate({ ids: entries.map((e) => e.id), extraDue: 0, operation: 'AUTOMATIC', cause: internalCause() });
    expect(done.activated).toHaveLength(3);

    // Expected: the soonest day among the card's bucket before and the buckets of the entries up to each one.
    const day = new Map((await db.query<{ points: number; day: string | null }>(`SELECT total_points::int AS points, to_char(expires_at, 'YYYY-MM-DD') AS day FROM loyalty_points_buckets WHERE voucher_id = $1`, [cards[0].id])).map((b) => [b.points, b.day]));
    let buckets: { day: string | null; points: number }[] = [{ day: nineMonths, points: 3 }];
    const expected = entries.map((entry) => {
      buckets = [...buckets, { day: day.get(entry.points) ?? null, points: entry.points }];
      const soonest = buckets.map((b) => b.day).filter((d) => d !== null).sort()[0];
      return { id: entry.id, next: { date: soonest, points: buckets.filter((b) => b.day === soonest).reduce((sum, b) => sum + b.points, 0) } };
    });
    const events = await db.query<{ id: string; card: { next_expiration_date?: string; next_expiration_points: number } }>(
      `SELECT data->'pending_points'->>'id' AS id, data->'voucher'->'loyalty_card' AS card FROM events WHERE type = $1 AND data->'pending_points'->>'id' = ANY($2::text[])`,
      [ACTIVATED, entries.map((e) => e.id)],
    );
    const shown = events.map((e) => ({ id: e.id, next: { date: e.card.next_expiration_date, points: e.card.next_expiration_points } }));
    expect(shown.sort((a, b) => (a.id < b.id ? -1 : 1))).toEqual(expected);
    // The last entry's card is the card as it now is.
    const [now] = await db.query<{ date: string; points: number }>(`SELECT to_char(next_expiration_date, 'YYYY-MM-DD') AS date, next_expiration_points::int AS points FROM vouchers WHERE id = $1`, [cards[0].id]);
    expect(now).toEqual(expected[2].next);
  });
});
