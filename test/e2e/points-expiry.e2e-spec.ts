import type { ChildProcess } from 'node:child_process';
import { useStack } from '../support/fixture.js';
import { startWorkerProcess, testConfig, waitFor } from '../support/harness.js';
import { enrol, payOrder, pointsCampaign, projectViolations, unique } from '../support/points.js';

/**
 * A day lasts this long here, for pending periods and bucket expiry alike: a bucket whose last day is today
 * expires within a DAY_MS, one of tomorrow within two. The sweeps run often so that what is due goes soon.
 */
const DAY_MS = 2_000;
const SWEEP_MS = 100;
const EXPIRED = 'customer.voucher.loyalty_card.points_expired';

/**
 * The worker expires buckets once their last day is over: one POINTS_EXPIRATION ledger row per card, the
 * buckets EXPIRED, the card's expired total, one points_expired event; due pending points of a card are
 * activated before its buckets expire; and with two worker processes, one of them killed and another
 * started once the expiry has begun, every bucket expires exactly once.
 */
describe('point expiry', () => {
  const timing = { PENDING_POINTS_DAY_MS: String(DAY_MS), PENDING_POINTS_SWEEP_MS: String(SWEEP_MS), POINTS_EXPIRY_SWEEP_MS: String(SWEEP_MS) };
  // Worker processes (the last test's races) log at info: their output is kept for a failure's message. The
  // tests before it need no process of their own and run their worker in this one.
  const env = { ...timing, LOG_LEVEL: 'info' };
  const workers = new Set<ChildProcess>();
  const stack = useStack({
    config: { PENDING_POINTS_DAY_MS: String(DAY_MS), RATE_LIMIT_PER_SECOND: '0' },
    projects: ['Expiry project', 'Expiry races project'],
    pointsDb: true,
    beforeClose: async ({ db, a, b }) => {
      for (const worker of workers) worker.kill('SIGKILL');
      expect(await projectViolations(db, a.project.id)).toEqual([]);
      expect(await projectViolations(db, b.project.id)).toEqual([]);
    },
  });
  const { db } = stack;

  const change = (code: string, body: object, who = stack.a) => stack.http().post(`/v1/loyalties/members/${code}/balance`).set(who.headers).send(body);
  const day = async (offset: number) => (await db.query<{ d: string }>(`SELECT to_char((now() AT TIME ZONE 'UTC')::date + $1::int, 'YYYY-MM-DD') AS d`, [offset]))[0].d;
  async function member(who = stack.a, rules: { points?: number; days?: number }[] = [{ points: 10 }]) {
    const { campaign } = await pointsCampaign(stack.app, who, rules);
    const customer = unique('expiry-holder');
    return { campaign, customer, code: await enrol(stack.app, who, campaign, customer) };
  }

  it('dates points as Voucherify documents: months clamped to the month\'s end, fixed days, rounding; the moment is 00:00 after it in the zone', async () => {
    const cases: [object | null, string, string | null][] = [
      [{ period_type: 'MONTH', period_value: 1 }, '2026-01-25', '2026-02-25'],
      [{ period_type: 'MONTH', period_value: 1 }, '2026-01-31', '2026-02-28'],
      [{ period_type: 'MONTH', period_value: 1 }, '2028-01-31', '2028-02-29'],
      [{ period_type: 'MONTH', period_value: 12 }, '2026-11-26', '2027-11-26'],
      [{ period_type: 'MONTH', period_value: 1, rounding_type: 'END_OF_MONTH', rounding_value: 0 }, '2026-01-05', '2026-02-28'],
      [{ period_type: 'MONTH', period_value: 1, rounding_type: 'END_OF_QUARTER', rounding_value: 0 }, '2026-01-31', '2026-03-31'],
      [{ period_type: 'MONTH', period_value: 6, rounding_type: 'END_OF_HALF_YEAR', rounding_value: 0 }, '2026-01-31', '2026-12-31'],
      [{ period_type: 'MONTH', period_value: 2, rounding_type: 'END_OF_HALF_YEAR', rounding_value: 0 }, '2026-01-31', '2026-06-30'],
      [{ period_type: 'MONTH', period_value: 1, rounding_type: 'END_OF_YEAR', rounding_value: 0 }, '2026-12-15', '2027-12-31'],
      [{ period_type: 'MONTH', period_value: 1, rounding_type: 'PARTICULAR_MONTH', rounding_value: 1 }, '2026-03-05', '2027-01-31'],
      [{ period_type: 'MONTH', period_value: 1, rounding_type: 'PARTICULAR_MONTH', rounding_value: 6 }, '2026-03-05', '2026-06-30'],
      [{ period_type: 'FIXED_DAY_OF_YEAR', fixed_month: 12, fixed_day: 31 }, '2026-03-05', '2026-12-31'],
      [{ period_type: 'FIXED_DAY_OF_YEAR', fixed_month: 12, fixed_day: 31 }, '2026-12-31', '2027-12-31'],
      [{ period_type: 'FIXED_DAY_OF_YEAR', fixed_month: 2, fixed_day: 31 }, '2026-03-05', '2027-02-28'],
      [{ period_type: 'FIXED_DAY_OF_YEAR', fixed_month: 2, fixed_day: 29 }, '2027-03-01', '2028-02-29'],
      [null, '2026-03-05', null],
    ];
    // A session in another time zone changes nothing: the dates are computed without one.
    await db.query(`SET TIME ZONE 'Pacific/Kiritimati'`);
    const got = await db.query<{ d: string | null }>(
      `SELECT to_char(loyalty_points_expiry_date(c.rules, c.activity), 'YYYY-MM-DD') AS d FROM ROWS FROM (jsonb_to_recordset($1::jsonb) AS (rules jsonb, activity date)) WITH ORDINALITY AS c(rules, activity, n) ORDER BY n`,
      [JSON.stringify(cases.map(([rules, activity]) => ({ rules, activity })))],
    );
    await db.query('RESET TIME ZONE');
    expect(got.map((row) => row.d)).toEqual(cases.map(([, , want]) => want));
    // This client has no loyalty.day_ms: a day is a day, and the moment is midnight in the zone (summer time too).
    const [moments] = await db.query<{ warsaw: string; ny: string; never: string | null }>(
      `SELECT to_char(loyalty_points_expire_after('2026-11-26', 'Europe/Warsaw') AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') AS warsaw,
              to_char(loyalty_points_expire_after('2026-07-01', 'America/New_York') AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') AS ny,
              loyalty_points_expire_after(NULL, 'UTC')::text AS never`,
    );
    expect(moments).toEqual({ warsaw: '2026-11-26 23:00', ny: '2026-07-02 04:00', never: null });
  });

  /**
   * Waits until every dated bucket of these cards is due. With the shortened day a bucket is due a fraction of
   * DAY_MS after it was made (the time left of the UTC day, scaled): set-up requests made one after the other
   * get moments apart, and a worker started before the last is due would expire a card's buckets in two goes.
   */
  const allDue = (cardIds: string[]) =>
    waitFor(
      async () =>
        (await db.count(`SELECT 1 FROM loyalty_points_buckets WHERE voucher_id = ANY($1) AND status = 'ACTIVE' AND expire_after > now()`, [cardIds])) === 0 ? true : undefined,
      { timeoutMs: 10_000, intervalMs: 50 },
    );

  it('expires a card\'s buckets after their last day: one ledger row, the buckets EXPIRED, expired_points, one event; the rest stays', async () => {
    // The worker starts once the card is set up and its buckets are all due (allDue).
    const { campaign, code } = await member();
    const today = await day(0);
    for (const [points, body] of [
      [30, { expiration_type: 'CUSTOM_DATE', expiration_date: today }],
      [20, { expiration_type: 'CUSTOM_DATE', expiration_date: today }],
      [7, { expiration_type: 'NON_EXPIRING' }],
    ] as const) {
      expect((await change(code, { points, ...body })).status).toBe(200);
    }
    expect((await change(code, { points: -5 })).status).toBe(200);
    const card = await db.card(code);
    await allDue([card.id]);
    await stack.startWorker(testConfig(timing));
    try {
      await waitFor(async () => ((await db.card(code)).balance === 7 ? true : undefined), { timeoutMs: 20_000 });
      const rows = await db.query<{ type: string; points: string; balance_after: string; details: { buckets: { points: number; expires_at: string }[]; balance: { points: number } } }>(
        `SELECT type, points, balance_after, details FROM voucher_transactions WHERE voucher_id = $1 AND type = 'POINTS_EXPIRATION'`,
        [card.id],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ points: '-45', balance_after: '7', details: { balance: { points: -45 } } });
      // The two credits of today went to one bucket (50), drained by 5.
      expect(rows[0].details.buckets.map((b) => [b.points, b.expires_at])).toEqual([[45, today]]);
      const [cols] = await db.query<{ expired: string }>('SELECT expired_points AS expired FROM vouchers WHERE id = $1', [card.id]);
      expect(cols.expired).toBe('45');
      const shown = await stack.http().get(`/v1/loyalties/members/${code}`).set(stack.a.headers);
      expect(shown.body.loyalty_card).toEqual({ points: 57, balance: 7, pending_points: 0, expired_points: 45, subtracted_points: 5, next_expiration_points: 0 });
      const list = await stack.http().get(`/v1/loyalties/${campaign.id}/members/${code}/points-expiration`).set(stack.a.headers);
      expect(list.body.total).toBe(1);
      expect(list.body.data[0].bucket).toEqual({ total_points: 7 });
      const events = await db.query<{ data: { points: number; buckets: { status: string }[]; transaction: { type: string }; customer: { object: string } } }>(
        'SELECT data FROM events WHERE type = $1 AND data->\'voucher\'->>\'id\' = $2',
        [EXPIRED, card.id],
      );
      expect(events).toHaveLength(1);
      expect(Object.keys(events[0].data).sort()).toEqual(['buckets', 'campaign', 'customer', 'points', 'transaction', 'voucher']);
      expect(events[0].data).toMatchObject({ points: 45, transaction: { type: 'POINTS_EXPIRATION' }, customer: { object: 'customer' } });
      expect(events[0].data.buckets.map((b) => b.status)).toEqual(['EXPIRED']);
    } finally {
      await stack.stopWorker();
    }
  }, 60_000);

  it('activates a card\'s due pending points before its due buckets expire', async () => {
    // No worker while both come due: then the two sweeps find them due at once.
    const { code, customer } = await member(stack.a, [{ points: 11, days: 1 }]);
    expect((await payOrder(stack.app, stack.a, { source_id: unique('expiry-order'), customer })).status).toBe(200);
    expect((await change(code, { points: 13, expiration_type: 'CUSTOM_DATE', expiration_date: await day(0) })).status).toBe(200);
    const card = await db.card(code);
    await waitFor(
      async () => {
        const [due] = await db.query<{ ready: boolean }>(
          `SELECT (SELECT bool_and(activates_at <= now()) FROM loyalty_pending_points WHERE voucher_id = $1)
                  AND (SELECT bool_and(expire_after <= now()) FROM loyalty_points_buckets WHERE voucher_id = $1 AND expires_at IS NOT NULL) AS ready`,
          [card.id],
        );
        return due.ready ? true : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    await stack.startWorker(testConfig(timing));
    try {
      await waitFor(async () => ((await db.count(`SELECT 1 FROM voucher_transactions WHERE voucher_id = $1 AND type = 'POINTS_EXPIRATION'`, [card.id])) === 1 ? true : undefined), {
        timeoutMs: 20_000,
      });
      const types = (await db.query<{ type: string }>('SELECT type FROM voucher_transactions WHERE voucher_id = $1 ORDER BY seq', [card.id])).map((row) => row.type);
      expect(types).toEqual(['POINTS_ADDITION', 'PENDING_POINTS_ACTIVATION', 'POINTS_EXPIRATION']);
      expect((await db.card(code)).balance).toBe(11);
    } finally {
      await stack.stopWorker();
    }
  }, 60_000);

  it('two workers race for the due buckets, one is killed once the expiry has begun and a third started: every bucket (two a card) expires once, one ledger row and one event per card', async () => {
    const who = stack.b;
    const cards: { code: string; id: string }[] = [];
    const days = [await day(0), await day(1)];
    const { campaign } = await pointsCampaign(stack.app, who, [{ points: 10 }]);
    for (let i = 0; i < 40; i += 1) {
      const code = await enrol(stack.app, who, campaign, unique('expiry-race'));
      // Five credits on two days: two buckets a card.
      for (let n = 0; n < 5; n += 1) expect((await change(code, { points: 3 + n, expiration_type: 'CUSTOM_DATE', expiration_date: days[n % 2] }, who)).status).toBe(200);
      expect((await change(code, { points: 2, expiration_type: 'NON_EXPIRING' }, who)).status).toBe(200);
      cards.push({ code, id: (await db.card(code)).id });
    }
    await allDue(cards.map((c) => c.id));
    const first = await startWorkerProcess(env, workers);
    const second = await startWorkerProcess(env, workers);
    await waitFor(async () => ((await db.count(`SELECT 1 FROM loyalty_points_buckets WHERE project_id = $1 AND status = 'EXPIRED'`, [who.project.id])) > 0 ? true : undefined), {
      timeoutMs: 20_000,
      intervalMs: 20,
    });
    first.kill('SIGKILL');
    const third = await startWorkerProcess(env, workers);
    try {
      await waitFor(async () => ((await db.count(`SELECT 1 FROM loyalty_points_buckets WHERE project_id = $1 AND status = 'EXPIRED'`, [who.project.id])) === 80 ? true : undefined), {
        timeoutMs: 30_000,
      });
      const ids = cards.map((c) => c.id);
      expect(await db.count(`SELECT 1 FROM voucher_transactions WHERE voucher_id = ANY($1) AND type = 'POINTS_EXPIRATION'`, [ids])).toBe(40);
      expect(await db.count(`SELECT 1 FROM events WHERE project_id = $1 AND type = $2`, [who.project.id, EXPIRED])).toBe(40);
      const [named] = await db.query<{ n: number; distinct: number }>(
        `SELECT count(*)::int AS n, count(DISTINCT b->>'id')::int AS distinct FROM voucher_transactions t, json_array_elements(t.details->'buckets') b
         WHERE t.voucher_id = ANY($1) AND t.type = 'POINTS_EXPIRATION'`,
        [ids],
      );
      expect(named).toEqual({ n: 80, distinct: 80 });
      for (const card of cards) expect((await db.card(card.code)).balance).toBe(2);
    } finally {
      second.kill('SIGTERM');
      third.kill('SIGTERM');
    }
  }, 120_000);
});
