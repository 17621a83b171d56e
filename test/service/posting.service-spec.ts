import type { ProjectContext } from '../../src/auth/auth.service.js';
import { CardRepository } from '../../src/cards/card.repository.js';
import { CardsModule } from '../../src/cards/cards.module.js';
import { dataError } from '../../src/common/errors/infrastructure-errors.js';
import { DatabaseKitModule } from '../../src/database/database-kit.module.js';
import { TransactionRunner } from '../../src/database/transaction-runner.js';
import { internalCause } from '../../src/events/recording/event-recording.js';
import { ExpiryRepository } from '../../src/points/buckets/expiry.repository.js';
import { ExpiryService } from '../../src/points/buckets/expiry.service.js';
import { balanceDetails, balanceJsonSql } from '../../src/points/ledger/ledger.repository.js';
import { type Movement, PointsExceeded, PointsPosting, type PostingCard, RefundNotRestorable } from '../../src/points/ledger/posting.service.js';
import { PointsModule } from '../../src/points/points.module.js';
import { addDueBuckets, bucketViolations, idMicros, projectViolations, unique } from '../support/points.js';
import { builders } from '../support/builders.js';
import { useServices } from '../support/services.js';

/**
 * The one posting path of point movements (issue 38): PointsPosting.post in a transaction that locked its
 * cards, checked in the database: the card's columns, its ledger rows, its buckets and its next expiration,
 * for each kind of movement; refused postings write nothing; the card's CHECK refuses any writer that breaks
 * balance = points − expired − subtracted − redeemed ≥ 0.
 */
describe('PointsPosting on PostgreSQL (no worker, no HTTP)', () => {
  const services = useServices({ imports: [PointsModule, CardsModule, DatabaseKitModule], providers: [ExpiryRepository, ExpiryService] });
  const { db } = services;

  const build = builders(services);
  /** A published card of a new project's campaign, `initial` points on it, expiring under the campaign's rules: a month. */
  async function card(initial = 0): Promise<{ project: ProjectContext; on: PostingCard; code: string; month: string }> {
    const { project, campaignId, card: made } = await build.member({ initialPoints: initial, expiration: build.monthly }, unique('posting-holder'));
    const [{ month }] = await db.query<{ month: string }>(`SELECT to_char((now() AT TIME ZONE 'UTC')::date + interval '1 month', 'YYYY-MM-DD') AS month`);
    return { project, on: { id: made.id, projectId: project.id, campaignId }, code: made.code, month };
  }

  /** `days` from today (UTC, the project's zone), as a bucket's last day. */
  const day = build.day;

  const post = (movements: Movement[]) =>
    services.get(TransactionRunner).run(async (tx) => services.get(PointsPosting).post(await services.get(CardRepository).lock(tx, movements.map((m) => m.card.id)), movements));

  const columns = async (cardId: string) =>
    (
      await db.query<{ points: number; balance: number; added: number; subtracted: number; redeemed: number; quantity: number; next_day: string | null; next_points: number }>(
        `SELECT points::int, balance::int, added_points::int AS added, subtracted_points::int AS subtracted, redeemed_points::int AS redeemed,
                redeemed_quantity AS quantity, to_char(next_expiration_date, 'YYYY-MM-DD') AS next_day, next_expiration_points::int AS next_points
         FROM vouchers WHERE id = $1`,
        [cardId],
      )
    )[0];
  const buckets = (cardId: string) =>
    db.query<{ id: string; day: string | null; total: number; remaining: number; status: string }>(
      `SELECT id, to_char(expires_at, 'YYYY-MM-DD') AS day, total_points::int AS total, remaining::int AS remaining, status FROM loyalty_points_buckets
       WHERE voucher_id = $1 ORDER BY status, expires_at NULLS LAST`,
      [cardId],
    );
  const ledger = (cardId: string) =>
    db.query<{ id: string; type: string; points: number; balance_after: number; source_id: string | null; details: Record<string, unknown> }>(
      'SELECT id, type, points::int, balance_after::int, source_id, details FROM voucher_transactions WHERE voucher_id = $1 ORDER BY seq',
      [cardId],
    );

  it('credits (ACCRUAL, ADDITION) go to the bucket of their day and debits (REMOVAL) drain the soonest first; each row shows the card right after it', async () => {
    const { project, on, month } = await card();
    const soon = await day(10);
    const posted = await post([
      { kind: 'ACCRUAL', card: on, points: 10, expiry: { earningRuleId: null }, row: { orderId: null, details: { order: { id: 'ord_x', source_id: null } } } },
      { kind: 'ADDITION', card: on, points: 5, expiry: { date: soon }, row: { sourceId: 'by-hand', details: { reason: 'goodwill' } } },
      { kind: 'ADDITION', card: on, points: 3, expiry: 'NON_EXPIRING' },
    ]);
    expect(posted.cards.get(on.id)).toMatchObject({ points: 18, balance: 18 });
    expect(await buckets(on.id)).toEqual([
      { id: expect.any(String), day: soon, total: 5, remaining: 5, status: 'ACTIVE' },
      { id: expect.any(String), day: month, total: 10, remaining: 10, status: 'ACTIVE' },
      { id: expect.any(String), day: null, total: 3, remaining: 3, status: 'ACTIVE' },
    ]);
    expect(await columns(on.id)).toMatchObject({ points: 18, balance: 18, added: 8, subtracted: 0, next_day: soon, next_points: 5 });

    const removal = await post([{ kind: 'REMOVAL', card: on, points: 7, row: { details: { reason: 'returned' } } }]);
    expect(removal.movements[0].buckets).toEqual([
      { id: expect.any(String), points: 5, expiresAt: soon },
      { id: expect.any(String), points: 2, expiresAt: month },
    ]);
    expect((await buckets(on.id)).map((b) => b.remaining)).toEqual([0, 8, 3]);
    expect(await columns(on.id)).toMatchObject({ points: 18, balance: 11, subtracted: 7, next_day: month, next_points: 8 });
    const rows = await ledger(on.id);
    expect(rows.map((r) => [r.type, r.points, r.balance_after, r.source_id])).toEqual([
      ['POINTS_ACCRUAL', 10, 10, null],
      ['POINTS_ADDITION', 5, 15, 'by-hand'],
      ['POINTS_ADDITION', 3, 18, null],
      ['POINTS_REMOVAL', -7, 11, null],
    ]);
    // `details`: the balance first, then the pieces the caller gave, in its order.
    expect(JSON.stringify(rows[1].details)).toBe(JSON.stringify({ balance: balanceDetails(on.id, 15, 5, 15), reason: 'goodwill' }));
    expect(rows[0].details).toEqual({ balance: balanceDetails(on.id, 10, 10, 10), order: { id: 'ord_x', source_id: null } });
    expect(rows[3].details).toEqual({ balance: balanceDetails(on.id, 18, -7, 11), reason: 'returned' });
    expect(posted.movements.map((m) => m.transaction.balanceAfter)).toEqual([10, 15, 18]);
    // The ids grow with the rows' order (timeId), within one posting and across postings.
    const made = rows.map((r) => idMicros(r.id, 'vtx_'));
    expect(made).toEqual([...made].sort((a, b) => a - b));
    expect(new Set(made).size).toBe(made.length);
    // (An accrual of no order: projectViolations would look for its order's earning.)
    expect(await bucketViolations(db, project.id)).toEqual([]);
    expect(rows.reduce((sum, r) => sum + r.points, 0)).toBe(11);
  });

  it('a REDEMPTION drains several buckets soonest-expiring first; its REFUND gives exactly those buckets their points back', async () => {
    const { project, on } = await card();
    const [a, b] = [await day(5), await day(20)];
    await post([
      { kind: 'ADDITION', card: on, points: 5, expiry: 'NON_EXPIRING' },
      { kind: 'ADDITION', card: on, points: 6, expiry: { date: b } },
      { kind: 'ADDITION', card: on, points: 4, expiry: { date: a } },
    ]);
    const details = { redemption: { id: 'r_test' }, reward: { id: 'rew_test', name: '100 = $20' } };
    const redemption = await post([{ kind: 'REDEMPTION', card: on, points: 8, row: { details } }]);
    const taken = redemption.movements[0].buckets;
    expect(taken).toEqual([
      { id: expect.any(String), points: 4, expiresAt: a },
      { id: expect.any(String), points: 4, expiresAt: b },
    ]);
    expect((await buckets(on.id)).map((x) => [x.day, x.remaining])).toEqual([
      [a, 0],
      [b, 2],
      [null, 5],
    ]);
    // Spent, not subtracted: the lifetime total stays, the counters count the redemption.
    expect(await columns(on.id)).toMatchObject({ points: 15, balance: 7, subtracted: 0, redeemed: 8, quantity: 1, next_day: b, next_points: 2 });

    // Meanwhile the day of `b` is credited again; the refund still gives each bucket what it gave.
    await post([{ kind: 'ADDITION', card: on, points: 2, expiry: { date: b } }]);
    const refund = await post([{ kind: 'REFUND', card: on, points: 8, buckets: taken, row: { details: { ...details, rollback: { id: 'rr_test' } } } }]);
    expect(refund.movements[0].buckets).toEqual(taken);
    expect((await buckets(on.id)).map((x) => [x.day, x.total, x.remaining])).toEqual([
      [a, 4, 4],
      [b, 8, 8],
      [null, 5, 5],
    ]);
    expect(await columns(on.id)).toMatchObject({ points: 17, balance: 17, redeemed: 0, quantity: 0, next_day: a, next_points: 4 });
    const rows = await ledger(on.id);
    expect(rows.slice(-3).map((r) => [r.type, r.points, r.balance_after])).toEqual([
      ['POINTS_REDEMPTION', -8, 7],
      ['POINTS_ADDITION', 2, 9],
      ['POINTS_REFUND', 8, 17],
    ]);
    expect(JSON.stringify(rows.at(-1)?.details)).toBe(JSON.stringify({ balance: balanceDetails(on.id, 17, 8, 17), ...details, rollback: { id: 'rr_test' } }));
    expect(await projectViolations(db, project.id)).toEqual([]);
  });

  it('a debit past the balance is refused before anything is written, with what it found', async () => {
    const { on } = await card(5);
    const before = { columns: await columns(on.id), buckets: await buckets(on.id), ledger: await ledger(on.id) };
    await expect(post([{ kind: 'REMOVAL', card: on, points: 6 }])).rejects.toMatchObject({ constructor: PointsExceeded, cardId: on.id, points: 6, balance: 5 });
    // A credit before it in the same posting counts; one after does not, and is not written either.
    await expect(
      post([
        { kind: 'ADDITION', card: on, points: 3, expiry: 'NON_EXPIRING' },
        { kind: 'REDEMPTION', card: on, points: 9 },
        { kind: 'ADDITION', card: on, points: 10, expiry: 'NON_EXPIRING' },
      ]),
    ).rejects.toMatchObject({ constructor: PointsExceeded, points: 9, balance: 8 });
    expect({ columns: await columns(on.id), buckets: await buckets(on.id), ledger: await ledger(on.id) }).toEqual(before);
    // The whole balance may go.
    await post([{ kind: 'REDEMPTION', card: on, points: 5 }]);
    expect(await columns(on.id)).toMatchObject({ balance: 0, redeemed: 5, quantity: 1 });
  });

  it('a refund to a bucket that expired since is refused before anything is written', async () => {
    const { project, on } = await card();
    await addDueBuckets(db, on.id, 1);
    await post([{ kind: 'ADDITION', card: on, points: 4, expiry: 'NON_EXPIRING' }]);
    const { movements } = await post([{ kind: 'REDEMPTION', card: on, points: 3 }]);
    const taken = movements[0].buckets;
    expect(taken.map((t) => t.points)).toEqual([1, 2]);
    await services.get(ExpiryService).sweep(1_000, internalCause());
    const before = { columns: await columns(on.id), buckets: await buckets(on.id), ledger: await ledger(on.id) };
    expect(before.buckets.map((x) => x.status)).toEqual(['ACTIVE', 'EXPIRED']);
    await expect(post([{ kind: 'REFUND', card: on, points: 3, buckets: taken }])).rejects.toBeInstanceOf(RefundNotRestorable);
    expect({ columns: await columns(on.id), buckets: await buckets(on.id), ledger: await ledger(on.id) }).toEqual(before);
    expect(await projectViolations(db, project.id)).toEqual([]);
  });

  it('details.balance is built alike in SQL (the set-based statements, the initial-points trigger) and in Node', async () => {
    const [row] = await db.query<{ balance: string }>(`SELECT (${balanceJsonSql('$1::text', '$2::bigint', '$3::bigint', '$4::bigint')})::text AS balance`, ['v_x', 30, -7, 23]);
    expect(JSON.stringify(JSON.parse(row.balance))).toBe(JSON.stringify(balanceDetails('v_x', 30, -7, 23)));
    const { on } = await card(12);
    const [initial] = await ledger(on.id);
    expect(JSON.stringify(initial.details.balance)).toBe(JSON.stringify(balanceDetails(on.id, 12, 12, 12)));
  });

  it("the card's CHECK refuses any writer that breaks balance = points − expired − subtracted − redeemed ≥ 0, as the service's error", async () => {
    const { on } = await card(10);
    const refused = async (sql: string) => {
      const error = await db.query(sql, [on.id]).then(
        () => null,
        (e: unknown) => e as { code: string; constraint: string },
      );
      expect(error).toMatchObject({ code: '23514' });
      // Not a value the caller sent (a 400): the service's own error.
      expect(dataError(error)).toBeNull();
      return error?.constraint;
    };
    expect(await refused('UPDATE vouchers SET balance = balance + 1 WHERE id = $1')).toBe('CHK_vouchers_balance');
    expect(await refused('UPDATE vouchers SET points = points + 5, balance = balance + 4 WHERE id = $1')).toBe('CHK_vouchers_balance');
    expect(await refused('UPDATE vouchers SET subtracted_points = subtracted_points + balance + 1, balance = -1 WHERE id = $1')).toBe('CHK_vouchers_balance');
    expect(await refused('UPDATE vouchers SET redeemed_points = redeemed_points - 1, balance = balance + 1 WHERE id = $1')).toBe('CHK_vouchers_redeemed');
    // A refund of points never redeemed: the posting's own UPDATE is refused the same way.
    await post([{ kind: 'REMOVAL', card: on, points: 1 }]);
    const [bucket] = await buckets(on.id);
    await expect(post([{ kind: 'REFUND', card: on, points: 1, buckets: [{ id: bucket.id, points: 1, expiresAt: bucket.day }] }])).rejects.toMatchObject({
      driverError: { code: '23514', constraint: 'CHK_vouchers_redeemed' },
    });
    expect(await columns(on.id)).toMatchObject({ points: 10, balance: 9, redeemed: 0 });
    expect((await buckets(on.id)).map((b) => b.remaining)).toEqual([9]);
  });
});
