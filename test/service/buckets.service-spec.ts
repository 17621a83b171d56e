import { AuthService, type ProjectContext } from '../../src/auth/auth.service.js';
import { CardsModule } from '../../src/cards/cards.module.js';
import { DatabaseKitModule } from '../../src/database/database-kit.module.js';
import { internalCause } from '../../src/events/recording/event-recording.js';
import { BalanceService } from '../../src/points/balance/balance.service.js';
import { BalanceChangeDto } from '../../src/points/balance/dto/balance.dto.js';
import { BucketRepository } from '../../src/points/buckets/bucket.repository.js';
import { BucketScheduleService } from '../../src/points/buckets/bucket-schedule.service.js';
import { ExpiryRepository } from '../../src/points/buckets/expiry.repository.js';
import { ExpiryService, POINTS_EXPIRY_STATEMENT_BUCKETS } from '../../src/points/buckets/expiry.service.js';
import { ActivationService } from '../../src/points/pending/activation.service.js';
import { PointsModule } from '../../src/points/points.module.js';
import { waitFor } from '../support/harness.js';
import { PointsDb, addDueBuckets, bucketViolations, unique } from '../support/points.js';
import { builders } from '../support/builders.js';
import { payOrder } from '../support/service-points.js';
import { type Services, body, useServices } from '../support/services.js';

/** A pending period of one "day" comes due within the test. */
const DAY_MS = 300;
const CHUNK = 100;
/** The statement timeout of every statement here: far above what the tests' statements take, below a lock held for good. */
const QUERY_TIMEOUT_MS = 1_000;
const RETRY_MS = 600_000;

/**
 * A card's point buckets are bounded by the days its points expire on (one ACTIVE bucket per card and day,
 * which every credit path adds to), and its expiry by chunks; a card whose expiry fails even alone is set
 * aside (issue 36). On PostgreSQL, through the services (no worker process, no HTTP).
 */
describe('point buckets per day and their bounded expiry (services on PostgreSQL)', () => {
  const services = useServices({
    imports: [PointsModule, CardsModule, DatabaseKitModule],
    providers: [BucketRepository, BucketScheduleService, ExpiryRepository, ExpiryService],
    config: {
      PENDING_POINTS_DAY_MS: String(DAY_MS),
      POINTS_EXPIRY_CHUNK_BUCKETS: String(CHUNK),
      POINTS_EXPIRY_RETRY_MS: String(RETRY_MS),
      DATABASE_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS),
    },
  });
  const { db } = services;
  const { change, buckets, expiryRows, build, member } = bucketHelpers(services);

  it('every credit path adds to the card\'s bucket of its day: the initial points, accruals, additions by hand, activations (two of one card in one batch)', async () => {
    const holder = await member(10);
    const { project, customer, card, month } = holder;
    expect(await buckets(card.id)).toEqual([{ day: month, total: 10, remaining: 10, status: 'ACTIVE' }]);
    for (let i = 0; i < 2; i += 1) await payOrder(services, project, { source_id: unique('bucket-order'), customer });
    await change(project, card.code, { points: 3 });
    expect(await build.bucket(holder, { points: 4, expires: month })).toMatchObject({ day: month, total: 27, remaining: 27 });
    expect(await build.bucket(holder, { points: 2, expires: null })).toMatchObject({ day: null, total: 2, remaining: 2 });
    await change(project, card.code, { points: 1, expiration_type: 'NON_EXPIRING' });
    expect(await buckets(card.id)).toEqual([
      { day: month, total: 10 + 5 + 5 + 3 + 4, remaining: 27, status: 'ACTIVE' },
      { day: null, total: 3, remaining: 3, status: 'ACTIVE' },
    ]);
    // Both entries of the card come due and are activated by one statement: their sum goes to the day's bucket once.
    await waitFor(async () => ((await db.count(`SELECT 1 FROM loyalty_pending_points WHERE voucher_id = $1 AND activates_at <= now()`, [card.id])) === 2 ? true : undefined));
    const activated = await services.get(ActivationService).activate({ ids: [], extraDue: 1_000, operation: 'AUTOMATIC', cause: internalCause() });
    expect(activated.activated.filter((a) => a.voucherId === card.id)).toHaveLength(2);
    expect(await buckets(card.id)).toEqual([
      { day: month, total: 27 + 14, remaining: 41, status: 'ACTIVE' },
      { day: null, total: 3, remaining: 3, status: 'ACTIVE' },
    ]);
    // A removal drains the dated bucket first; a later credit adds to the drained bucket.
    await change(project, card.code, { points: -40 });
    await change(project, card.code, { points: 6 });
    expect(await buckets(card.id)).toEqual([
      { day: month, total: 47, remaining: 7, status: 'ACTIVE' },
      { day: null, total: 3, remaining: 3, status: 'ACTIVE' },
    ]);
    expect(await bucketViolations(db, project.id)).toEqual([]);
  });

  it('expires a card\'s 250 due buckets in chunks of 100: one ledger row per chunk, the sweep going on until none is left', async () => {
    const { project, card } = await member(0);
    await addDueBuckets(db, card.id, 250);
    await services.get(ExpiryService).sweep(1_000, internalCause());
    expect(await expiryRows(card.id)).toEqual([
      { points: 100, buckets: 100 },
      { points: 100, buckets: 100 },
      { points: 50, buckets: 50 },
    ]);
    expect(await db.count(`SELECT 1 FROM loyalty_points_buckets WHERE voucher_id = $1 AND status = 'ACTIVE'`, [card.id])).toBe(0);
    expect(await db.count(`SELECT 1 FROM events WHERE type = 'customer.voucher.loyalty_card.points_expired' AND data->'voucher'->>'id' = $1`, [card.id])).toBe(3);
    expect(await bucketViolations(db, project.id)).toEqual([]);
  });

  it('one statement expires at most POINTS_EXPIRY_STATEMENT_BUCKETS buckets, whole chunks of cards in id order; the next batch takes the rest', async () => {
    const program = await build.program();
    const { project } = program;
    const cards: string[] = [];
    for (let i = 0; i < 60; i += 1) cards.push((await build.member(program, unique('budget-holder'))).card.id);
    for (const id of cards) await addDueBuckets(db, id, CHUNK);
    const expiry = services.get(ExpiryService);
    const first = await expiry.expireBatch(1_000, internalCause());
    const mine = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM loyalty_points_buckets WHERE voucher_id = ANY($1) AND status = 'EXPIRED'`, [cards]))[0].n;
    expect(mine).toBeLessThanOrEqual(POINTS_EXPIRY_STATEMENT_BUCKETS);
    expect(mine % CHUNK).toBe(0);
    expect(first.more).toBe(true);
    await expiry.sweep(1_000, internalCause());
    expect(await db.count(`SELECT 1 FROM loyalty_points_buckets WHERE voucher_id = ANY($1) AND status = 'ACTIVE'`, [cards])).toBe(0);
    expect(await db.count(`SELECT 1 FROM voucher_transactions WHERE voucher_id = ANY($1) AND type = 'POINTS_EXPIRATION'`, [cards])).toBe(60);
    expect(await bucketViolations(db, project.id)).toEqual([]);
  });

  it('a card whose expiry cannot finish is set aside while the others expire; it is tried again after POINTS_EXPIRY_RETRY_MS, or when released', async () => {
    const poison = await member(0);
    const other = await member(0);
    await addDueBuckets(db, poison.card.id, 2);
    await addDueBuckets(db, other.card.id, 2);
    const expiry = services.get(ExpiryService);
    // Another session holds one of the card's buckets: every statement that expires it waits past its timeout.
    const holder = new PointsDb();
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM loyalty_points_buckets WHERE voucher_id = $1 LIMIT 1 FOR UPDATE`, [poison.card.id]);
      // The batch's statement times out, then the cards alone for one more timeout at most: the card is set aside,
      // and the other card expires in the same sweep or, if its turn came after that timeout, in the next.
      await expiry.sweep(1_000, internalCause());
      expect((await expiry.setAsideCards(poison.project.id)).map((c) => c.id)).toEqual([poison.card.id]);
      await expiry.sweep(1_000, internalCause());
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    expect((await buckets(other.card.id)).map((b) => b.status)).toEqual(['EXPIRED', 'EXPIRED']);
    expect((await buckets(poison.card.id)).map((b) => b.status)).toEqual(['ACTIVE', 'ACTIVE']);
    const [setAside] = await expiry.setAsideCards(poison.project.id);
    expect(setAside).toMatchObject({ id: poison.card.id, code: poison.card.code, error: expect.stringContaining('statement timeout') });

    // Left out until POINTS_EXPIRY_RETRY_MS has passed: the sweep goes by it.
    await expiry.sweep(1_000, internalCause());
    expect((await buckets(poison.card.id)).map((b) => b.status)).toEqual(['ACTIVE', 'ACTIVE']);
    await db.query(`UPDATE vouchers SET expiry_set_aside_at = now() - make_interval(secs => $2::float8 / 1000 + 1) WHERE id = $1`, [poison.card.id, RETRY_MS]);
    await expiry.sweep(1_000, internalCause());
    expect((await buckets(poison.card.id)).map((b) => b.status)).toEqual(['EXPIRED', 'EXPIRED']);
    expect(await expiry.setAsideCards(poison.project.id)).toEqual([]);

    // By hand: released at once (only the cards named, or of the project named).
    await db.query(`UPDATE vouchers SET expiry_error = 'test', expiry_set_aside_at = now() WHERE id = ANY($1)`, [[poison.card.id, other.card.id]]);
    expect(await expiry.release({ cardIds: [other.card.id] })).toEqual([other.card.id]);
    expect(await expiry.release({ projectId: poison.project.id })).toEqual([poison.card.id]);
    expect(await expiry.release({})).toEqual([]);
    expect(await bucketViolations(db, poison.project.id)).toEqual([]);
    expect(await bucketViolations(db, other.project.id)).toEqual([]);
  }, 30_000);

  it('when every card\'s statement times out (a database too slow), a sweep sets one card aside, not every card in turn', async () => {
    const cards = [await member(0), await member(0), await member(0)];
    for (const { card } of cards) await addDueBuckets(db, card.id, 1);
    const expiry = services.get(ExpiryService);
    const holder = new PointsDb();
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM loyalty_points_buckets WHERE voucher_id = ANY($1) FOR UPDATE`, [cards.map((c) => c.card.id)]);
      await expiry.sweep(1_000, internalCause());
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    // The batch's statement timed out, then the first card alone: card by card stops there, and so does the sweep.
    // The errors themselves, so that a failure says which statements failed and how.
    const setAside = await db.query<{ error: string }>(`SELECT expiry_error AS error FROM vouchers WHERE id = ANY($1) AND expiry_error IS NOT NULL`, [cards.map((c) => c.card.id)]);
    expect(setAside.map((c) => c.error)).toEqual([expect.stringContaining('statement timeout')]);
    expect(await expiry.release({ cardIds: cards.map((c) => c.card.id) })).toHaveLength(1);
    await expiry.sweep(1_000, internalCause());
    expect(await db.count(`SELECT 1 FROM loyalty_points_buckets WHERE voucher_id = ANY($1) AND status = 'ACTIVE'`, [cards.map((c) => c.card.id)])).toBe(0);
  }, 30_000);
});

/** Rescheduling by time zone, with days of real length: a moment is then exact, whenever it was computed. */
describe('point buckets when the project\'s time zone changes (services on PostgreSQL)', () => {
  const services = useServices({ imports: [PointsModule, CardsModule, DatabaseKitModule], providers: [BucketRepository, BucketScheduleService] });
  const { db } = services;
  const { change, buckets, member } = bucketHelpers(services);

  it('a time zone change moves the moments, not the days: still one bucket per day, each rescheduled once', async () => {
    const { project, card, month } = await member(0);
    const [{ later }] = await db.query<{ later: string }>(`SELECT to_char((now() AT TIME ZONE 'UTC')::date + 40, 'YYYY-MM-DD') AS later`);
    for (const date of [month, later, month, later]) await change(project, card.code, { points: 2, expiration_type: 'CUSTOM_DATE', expiration_date: date });
    const moments = async () => (await db.query<{ at: Date }>(`SELECT expire_after AS at FROM loyalty_points_buckets WHERE voucher_id = $1 ORDER BY expires_at`, [card.id])).map((r) => r.at.getTime());
    const before = await moments();
    await services.get(AuthService).setTimeZone(project.id, 'Pacific/Kiritimati');
    expect(await services.get(BucketScheduleService).reschedule(project.id)).toBe(2);
    // Midnight at UTC+14 comes 14 hours before midnight in UTC (a day of real length: the moments do not
    // depend on when they were computed).
    const after = await moments();
    expect(after.map((at, i) => before[i] - at)).toEqual([14 * 3_600_000, 14 * 3_600_000]);
    await change(project, card.code, { points: 1, expiration_type: 'CUSTOM_DATE', expiration_date: later });
    expect((await buckets(card.id)).map((b) => [b.day, b.total])).toEqual([
      [month, 4],
      [later, 5],
    ]);
    expect(await bucketViolations(db, project.id)).toEqual([]);
  });
});

/** The helpers of both describe blocks: a balance change by hand, a card's buckets and expiry rows, a member. */
function bucketHelpers(services: Services) {
  const { db } = services;
  const change = async (project: ProjectContext, code: string, plain: object) => services.get(BalanceService).change(project, null, code, await body(BalanceChangeDto, plain), undefined);
  const buckets = (cardId: string) =>
    db.query<{ day: string | null; total: number; remaining: number; status: string }>(
      `SELECT to_char(expires_at, 'YYYY-MM-DD') AS day, total_points::int AS total, remaining::int AS remaining, status FROM loyalty_points_buckets
       WHERE voucher_id = $1 ORDER BY status, expires_at NULLS LAST`,
      [cardId],
    );
  const expiryRows = (cardId: string) =>
    db.query<{ points: number; buckets: number }>(
      `SELECT -points::int AS points, json_array_length(details->'buckets') AS buckets FROM voucher_transactions WHERE voucher_id = $1 AND type = 'POINTS_EXPIRATION' ORDER BY seq`,
      [cardId],
    );

  const build = builders(services);
  /** A member of a campaign with `initial` points, an accrual rule of 5 and a pending rule of 7 (one day), and the campaign's rules: a month. */
  async function member(initial = 10) {
    const built = await build.member({ rules: [{ points: 5 }, { points: 7, days: 1 }], initialPoints: initial, expiration: build.monthly }, unique('bucket-holder'));
    const [{ month }] = await db.query<{ month: string }>(`SELECT to_char((now() AT TIME ZONE 'UTC')::date + interval '1 month', 'YYYY-MM-DD') AS month`);
    return { ...built, month };
  }
  return { change, buckets, expiryRows, build, member };
}
