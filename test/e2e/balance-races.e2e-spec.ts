import { type ChildProcess, execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { cliOk } from '../support/cli.js';
import { useStack } from '../support/fixture.js';
import { startWorkerProcess, testConfig, waitFor } from '../support/harness.js';
import { Answers, enrol, inParallel, payOrder, pointsCampaign, projectViolations, unique } from '../support/points.js';

const DAY_MS = 1_000;
const SWEEP_MS = 100;
const EXCEEDED = '400 loyalty_card_points_exceeded';

/**
 * Balance changes by hand raced on one card: removals against each other, one Idempotency-Key sent many
 * times at once, and removals and additions against two worker processes expiring the card's buckets and
 * activating its pending points. No answer is a 5xx, and card, ledger, buckets and events agree.
 */
describe('balance changes under concurrency', () => {
  const env = { PENDING_POINTS_DAY_MS: String(DAY_MS), PENDING_POINTS_SWEEP_MS: String(SWEEP_MS), POINTS_EXPIRY_SWEEP_MS: String(SWEEP_MS), LOG_LEVEL: 'info' };
  const workers = new Set<ChildProcess>();
  const stack = useStack({
    // The races prove the invariants, not load shedding (database-busy does): on a loaded machine a request
    // can wait behind a time-zone change's reschedule past the 3 s default lock timeout and be answered 503
    // database_busy (nothing changed), so the waits are given 15 s here.
    config: { PENDING_POINTS_DAY_MS: String(DAY_MS), RATE_LIMIT_PER_SECOND: '0', DATABASE_QUERY_TIMEOUT_MS: '15000', DATABASE_LOCK_TIMEOUT_MS: '15000' },
    projects: ['Balance races project'],
    pointsDb: true,
    beforeClose: async ({ db, a }) => {
      for (const worker of workers) worker.kill('SIGKILL');
      expect(await projectViolations(db, a.project.id)).toEqual([]);
    },
  });
  const { db } = stack;
  const change = (code: string, body: object) => stack.http().post(`/v1/loyalties/members/${code}/balance`).set(stack.a.headers).send(body);

  it('50 parallel removals of 10 on a balance of 100: exactly 10 succeed, in each of 3 rounds', async () => {
    const { campaign } = await pointsCampaign(stack.app, stack.a, [{ points: 10 }]);
    const code = await enrol(stack.app, stack.a, campaign, unique('removal-race'));
    const card = await db.card(code);
    for (let round = 0; round < 3; round += 1) {
      expect((await change(code, { points: 100 })).status).toBe(200);
      const answers = new Answers();
      const results = await inParallel(
        Array.from({ length: 50 }, () => async () => answers.add(await change(code, { points: -10, reason: `round ${round}` }))),
        50,
      );
      expect(answers.report(['200', EXCEEDED])).toEqual({ histogram: { '200': 10, [EXCEEDED]: 40 }, unexpected: {} });
      expect(results.filter((key) => key === '200')).toHaveLength(10);
      expect((await db.card(code)).balance).toBe(0);
    }
    expect(await db.count(`SELECT 1 FROM voucher_transactions WHERE voucher_id = $1 AND type = 'POINTS_REMOVAL'`, [card.id])).toBe(30);
    expect(await db.count(`SELECT 1 FROM events WHERE type = 'customer.voucher.loyalty_card.points_removed' AND data->'voucher'->>'id' = $1`, [card.id])).toBe(30);
    expect(await projectViolations(db, stack.a.project.id)).toEqual([]);
  }, 60_000);

  it('one Idempotency-Key sent 20 times at once: one ledger row, every 200 the same answer, the rest 409', async () => {
    const { campaign } = await pointsCampaign(stack.app, stack.a, [{ points: 10 }]);
    const code = await enrol(stack.app, stack.a, campaign, unique('key-race'));
    const card = await db.card(code);
    for (let round = 0; round < 3; round += 1) {
      const key = unique('race-key');
      const answers = new Answers();
      const bodies: unknown[] = [];
      await inParallel(
        Array.from({ length: 20 }, () => async () => {
          const res = await change(code, { points: 25, source_id: key }).set('Idempotency-Key', key);
          if (res.status === 200) bodies.push(res.body);
          return answers.add(res);
        }),
        20,
      );
      expect(answers.report(['200', '409 idempotency_request_in_progress']).unexpected).toEqual({});
      expect(bodies.length).toBeGreaterThanOrEqual(1);
      for (const body of bodies) expect(body).toStrictEqual(bodies[0]);
      // A retry after the first finished is answered, not run again.
      const retry = await change(code, { points: 25, source_id: key }).set('Idempotency-Key', key);
      expect(retry.body).toStrictEqual(bodies[0]);
      expect(await db.count(`SELECT 1 FROM voucher_transactions WHERE voucher_id = $1 AND source_id = $2`, [card.id, key])).toBe(1);
    }
    expect((await db.card(code)).balance).toBe(75);
  }, 60_000);

  it('a time zone change (cli.js set-time-zone, two at once) races removals and additions on one card; then every bucket expires at the zone\'s midnight', async () => {
    const cli = (zone: string) =>
      promisify(execFile)(process.execPath, ['dist/cli.js', 'set-time-zone', stack.a.project.id, zone], {
        env: { ...process.env, DATABASE_URL: testConfig().databaseUrl, LOG_LEVEL: 'warn', PENDING_POINTS_DAY_MS: '86400000' },
      });
    const { campaign } = await pointsCampaign(stack.app, stack.a, [{ points: 10 }]);
    const code = await enrol(stack.app, stack.a, campaign, unique('zone-race'));
    const card = await db.card(code);
    const dated = (i: number) => ({ expiration_type: 'CUSTOM_DATE', expiration_date: `2099-0${(i % 9) + 1}-15` });
    for (let i = 0; i < 20; i += 1) expect((await change(code, { points: 5, ...dated(i) })).status).toBe(200);
    const answers = new Answers();
    const requests = inParallel(
      [
        ...Array.from({ length: 20 }, (_, i) => async () => answers.add(await change(code, { points: 3, ...dated(i) }))),
        ...Array.from({ length: 20 }, () => async () => answers.add(await change(code, { points: -4 }))),
      ],
      10,
    );
    const [, kiritimati, warsaw] = await Promise.all([requests, cli('Pacific/Kiritimati'), cli('Europe/Warsaw')]);
    expect(answers.report(['200']).unexpected).toEqual({});
    expect(kiritimati.stdout).toMatch(/\(\d+ point buckets rescheduled\)/);
    expect(warsaw.stdout).toMatch(/\(\d+ point buckets rescheduled\)/);
    // The last change alone, at the real length of a day: every dated bucket's moment is 00:00 after its day in the zone.
    // Alone (no race), it runs in this process (test/support/cli.ts); the two racing changes above are processes.
    const last = await cliOk(['set-time-zone', stack.a.project.id, 'America/New_York'], { PENDING_POINTS_DAY_MS: '86400000' });
    // 40 credits on 9 days: 9 buckets (one per day), whatever the zone changes they raced.
    expect(last).toContain('(9 point buckets rescheduled)');
    const [off] = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM loyalty_points_buckets
       WHERE voucher_id = $1 AND status = 'ACTIVE' AND expires_at IS NOT NULL AND expire_after <> ((expires_at + 1)::timestamp AT TIME ZONE 'America/New_York')`,
      [card.id],
    );
    expect(off.n).toBe(0);
    expect((await db.card(code)).balance).toBe(100 + 60 - 80);
    expect(await projectViolations(db, stack.a.project.id)).toEqual([]);
    await cliOk(['set-time-zone', stack.a.project.id, 'UTC'], { PENDING_POINTS_DAY_MS: '86400000' });
  }, 60_000);

  it('removals and additions race two workers expiring the card\'s buckets and activating its pending points', async () => {
    await Promise.all([startWorkerProcess(env, workers), startWorkerProcess(env, workers)]);
    const { campaign } = await pointsCampaign(stack.app, stack.a, [{ points: 6, days: 1 }]);
    const customer = unique('expiry-race');
    const code = await enrol(stack.app, stack.a, campaign, customer);
    const card = await db.card(code);
    const [today] = await db.query<{ d: string }>(`SELECT to_char((now() AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS d`);
    const answers = new Answers();
    for (let round = 0; round < 4; round += 1) {
      await inParallel(
        [
          ...Array.from({ length: 8 }, () => async () => answers.add(await change(code, { points: 5, expiration_type: 'CUSTOM_DATE', expiration_date: today.d }))),
          ...Array.from({ length: 4 }, () => async () => answers.add(await change(code, { points: 3, expiration_type: 'NON_EXPIRING' }))),
          ...Array.from({ length: 4 }, () => async () => answers.add(await payOrder(stack.app, stack.a, { source_id: unique('race-order'), customer }))),
          ...Array.from({ length: 12 }, () => async () => answers.add(await change(code, { points: -4 }))),
        ],
        16,
      );
    }
    expect(answers.report(['200', EXCEEDED]).unexpected).toEqual({});
    // Everything due settles: the entries activate, the dated buckets expire.
    await waitFor(
      async () => {
        const [left] = await db.query<{ n: number }>(
          `SELECT (SELECT count(*) FROM loyalty_pending_points WHERE voucher_id = $1 AND status = 'PENDING')
                + (SELECT count(*) FROM loyalty_points_buckets WHERE voucher_id = $1 AND status = 'ACTIVE' AND expires_at IS NOT NULL) AS n`,
          [card.id],
        );
        return Number(left.n) === 0 ? true : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    const [named] = await db.query<{ n: number; distinct: number; expired: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT b->>'id')::int AS distinct,
              (SELECT count(*)::int FROM loyalty_points_buckets WHERE voucher_id = $1 AND status = 'EXPIRED' AND remaining > 0) AS expired
       FROM voucher_transactions t, json_array_elements(t.details->'buckets') b WHERE t.voucher_id = $1 AND t.type = 'POINTS_EXPIRATION'`,
      [card.id],
    );
    // Each bucket that still held points when it expired is named by exactly one expiry row.
    expect(named.n).toBe(named.distinct);
    expect(named.distinct).toBeGreaterThanOrEqual(named.expired);
    expect(await projectViolations(db, stack.a.project.id)).toEqual([]);
  }, 90_000);

  it('credits of every path merge into one bucket per day while removals, expiry and activation by two workers race them on one card', async () => {
    while (workers.size < 2) await startWorkerProcess(env, workers);
    // Initial points (the trigger), an accrual and a pending rule (the orders, then the workers' activation),
    // all under the campaign's rules: today + 1 month, one day for all of them.
    const { campaign } = await pointsCampaign(stack.app, stack.a, [{ points: 5 }, { points: 6, days: 1 }], {
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 20, expiration_rules: { period_type: 'MONTH', period_value: 1 } } },
    });
    const customer = unique('merge-race');
    const code = await enrol(stack.app, stack.a, campaign, customer);
    const card = await db.card(code);
    const [days] = await db.query<{ today: string; tomorrow: string }>(
      `SELECT to_char((now() AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS today, to_char((now() AT TIME ZONE 'UTC')::date + 1, 'YYYY-MM-DD') AS tomorrow`,
    );
    const sharedDays = () =>
      db.count(`SELECT 1 FROM loyalty_points_buckets WHERE voucher_id = $1 AND status = 'ACTIVE' GROUP BY coalesce(expires_at, 'infinity'::date) HAVING count(*) > 1`, [card.id]);
    const answers = new Answers();
    for (let round = 0; round < 4; round += 1) {
      await inParallel(
        [
          ...Array.from({ length: 6 }, () => async () => answers.add(await change(code, { points: 5, expiration_type: 'CUSTOM_DATE', expiration_date: days.today }))),
          ...Array.from({ length: 6 }, () => async () => answers.add(await change(code, { points: 4, expiration_type: 'CUSTOM_DATE', expiration_date: days.tomorrow }))),
          ...Array.from({ length: 4 }, () => async () => answers.add(await change(code, { points: 3, expiration_type: 'NON_EXPIRING' }))),
          ...Array.from({ length: 4 }, () => async () => answers.add(await change(code, { points: 2 }))),
          ...Array.from({ length: 6 }, () => async () => answers.add(await payOrder(stack.app, stack.a, { source_id: unique('merge-order'), customer }))),
          ...Array.from({ length: 12 }, () => async () => answers.add(await change(code, { points: -4 }))),
        ],
        16,
      );
      expect(await sharedDays()).toBe(0);
    }
    expect(answers.report(['200', EXCEEDED]).unexpected).toEqual({});
    // Everything due settles: the entries activate (into the campaign's day), today's and tomorrow's buckets expire.
    await waitFor(
      async () => {
        const [left] = await db.query<{ n: number }>(
          `SELECT (SELECT count(*) FROM loyalty_pending_points WHERE voucher_id = $1 AND status = 'PENDING')
                + (SELECT count(*) FROM loyalty_points_buckets WHERE voucher_id = $1 AND status = 'ACTIVE' AND expires_at <= $2::date) AS n`,
          [card.id, days.tomorrow],
        );
        return Number(left.n) === 0 ? true : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    // Left: the campaign's day (initial points, accruals, activations, additions under its rules) and the never-expiring bucket.
    const active = await db.query<{ day: string | null }>(`SELECT to_char(expires_at, 'YYYY-MM-DD') AS day FROM loyalty_points_buckets WHERE voucher_id = $1 AND status = 'ACTIVE' ORDER BY expires_at`, [card.id]);
    expect(active).toHaveLength(2);
    expect(active[1].day).toBeNull();
    expect(await projectViolations(db, stack.a.project.id)).toEqual([]);
  }, 120_000);
});
