import type { ChildProcess } from 'node:child_process';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { cohortOf } from '../../src/points/pending/activation-cohorts.js';
import { useStack } from '../support/fixture.js';
import { type TestProject, createProject, startWorkerProcess, waitFor } from '../support/harness.js';
import { Answers, enrol, inParallel, payOrder, pointsCampaign, projectViolations, unique } from '../support/points.js';

/** One "day" of pending points lasts this long here (for the API, which sets activates_at); the sweep runs this often. */
const DAY_MS = 1_000;
const SWEEP_MS = 500;
const STATE = '400 invalid_pending_points_state';
const CANCELED = 'customer.voucher.loyalty_card.pending_points.canceled';
const UPDATED = 'customer.voucher.loyalty_card.pending_points.updated';

/**
 * Pending entries raced on the same entries and cards, with two real worker processes activating what comes
 * due: order cancellations against the workers' and manual activations, adjustments against cancellations,
 * and a card whose balance is near the int4 limit next to a normal card. Whoever wins, an entry ends once
 * and one way, no answer is a 5xx, and cards, ledger, entries and events agree.
 */
describe('pending entries under concurrent cancel, adjust and activation', () => {
  const env = { PENDING_POINTS_DAY_MS: String(DAY_MS), PENDING_POINTS_SWEEP_MS: String(SWEEP_MS), LOG_LEVEL: 'info' };
  const workers = new Set<ChildProcess>();
  const stack = useStack({
    config: { PENDING_POINTS_DAY_MS: String(DAY_MS), RATE_LIMIT_PER_SECOND: '0', DATABASE_QUERY_TIMEOUT_MS: '5000' },
    pointsDb: true,
    beforeClose: async () => {
      const exited = [...workers].map((worker) => new Promise((resolve) => worker.once('exit', resolve)));
      for (const worker of workers) worker.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(exited), new Promise((resolve) => (timer = setTimeout(resolve, 10_000)))]);
      clearTimeout(timer);
      for (const worker of workers) worker.kill('SIGKILL');
    },
  });
  const { db } = stack;

  beforeAll(async () => {
    await Promise.all([startWorkerProcess(env, workers), startWorkerProcess(env, workers)]);
  }, 45_000);

  const entryPath = (code: string, id: string) => `/v1/loyalties/members/${code}/pending-points/${id}`;

  /** `orders` paid orders per card, one after the other on a card and the cards in parallel; each order id with its card. */
  async function paidOrders(who: TestProject, customers: string[], codes: string[], orders: number): Promise<{ orderId: string; code: string }[]> {
    const made = await Promise.all(
      customers.map(async (customer, i) => {
        const mine: { orderId: string; code: string }[] = [];
        for (let n = 0; n < orders; n += 1) {
          const res = await payOrder(stack.app, who, { source_id: unique('pending-race'), customer });
          if (res.status !== 200) throw new Error(`paying an order: ${res.status} ${JSON.stringify(res.body)}`);
          mine.push({ orderId: res.body.id as string, code: codes[i] });
        }
        return mine;
      }),
    );
    return made.flat();
  }

  async function members(who: TestProject, days: number, points: number, count: number) {
    const { campaign } = await pointsCampaign(stack.app, who, [{ points, days }]);
    const customers = Array.from({ length: count }, () => unique('pending-holder'));
    return { customers, codes: await Promise.all(customers.map((customer) => enrol(stack.app, who, campaign, customer))) };
  }

  const entriesOf = (orderIds: string[]) =>
    db.query<{ id: string; order_id: string; status: string; points: number; activates_at: Date }>('SELECT id, order_id, status, points, activates_at FROM loyalty_pending_points WHERE order_id = ANY($1::text[])', [orderIds]);

  it('PUT CANCELED on orders at the moment their entries come due, against two workers and manual activations: each entry ends once', async () => {
    const who = await createProject(stack.app, 'Cancel against activation');
    const { customers, codes } = await members(who, 1, 11, 10);
    const puts = new Answers();
    const manual = new Answers();
    for (let round = 0; round < 3; round += 1) {
      const orders = await paidOrders(who, customers, codes, 2);
      const entries = await entriesOf(orders.map((o) => o.orderId));
      expect(entries).toHaveLength(orders.length);
      const entryOf = new Map(entries.map((e) => [e.order_id, e.id]));
      // Fire when the first entry comes due: the workers' jobs fire around the same moment.
      const due = Math.min(...entries.map((e) => e.activates_at.getTime()));
      await waitFor(async () => (Date.now() >= due - 20 ? true : undefined), { timeoutMs: 2 * DAY_MS + 5_000, intervalMs: 5 });
      const results = await Promise.all(
        orders.flatMap(({ orderId, code }) => [
          stack.http().put(`/v1/orders/${orderId}`).set(who.headers).send({ status: 'CANCELED' }).then((res) => ({ kind: 'put', orderId, key: puts.add(res), body: res.body })),
          stack.http().post(`${entryPath(code, entryOf.get(orderId) as string)}/activate`).set(who.headers).then((res) => ({ kind: 'activate', orderId, key: manual.add(res), body: res.body })),
        ]),
      );
      expect(results.filter((r) => r.kind === 'put' && r.key === '200').every((r) => r.body.status === 'CANCELED')).toBe(true);
      // Once the cancellation answered, no entry of the order is PENDING: it was canceled, or activated before.
      const settled = new Map((await entriesOf(orders.map((o) => o.orderId))).map((e) => [e.order_id, e.status]));
      expect(orders.filter((o) => !['ACTIVATED', 'CANCELED'].includes(settled.get(o.orderId) as string))).toEqual([]);
      // A manual activation that answered 200 did activate the entry.
      expect(results.filter((r) => r.kind === 'activate' && r.key === '200' && settled.get(r.orderId) !== 'ACTIVATED')).toEqual([]);
    }
    expect(puts.report(['200'])).toEqual({ histogram: { '200': 3 * 20 }, unexpected: {} });
    expect(manual.report(['200', STATE])).toEqual({ histogram: manual.histogram, unexpected: {} });
    expect(await projectViolations(db, who.project.id)).toEqual([]);
  });

  it('adjustments racing cancels of the same entries: one cancel wins, the adjustments before it count, none after', async () => {
    const who = await createProject(stack.app, 'Adjust against cancel');
    // 90 days of one second: none comes due while the test runs, and all end CANCELED.
    const { customers, codes } = await members(who, 90, 50, 4);
    const DELTAS = [2, -1, 3, -1, 1];
    const adjusts = new Answers();
    const cancels = new Answers();
    for (let round = 0; round < 2; round += 1) {
      const orders = await paidOrders(who, customers, codes, 5);
      const entries = await entriesOf(orders.map((o) => o.orderId));
      const codeOf = new Map(orders.map((o) => [o.orderId, o.code]));
      // Per entry 5 adjustments and 2 cancels, interleaved and consecutive, so that they run together.
      const tasks = entries.flatMap((entry) => {
        const path = entryPath(codeOf.get(entry.order_id) as string, entry.id);
        const adjust = (points: number) => () => stack.http().post(`${path}/balance`).set(who.headers).send({ points }).then((res) => ({ entry: entry.id, points, key: adjusts.add(res) }));
        const cancel = () => stack.http().post(`${path}/cancel`).set(who.headers).then((res) => ({ entry: entry.id, points: 0, key: cancels.add(res) }));
        return [adjust(DELTAS[0]), adjust(DELTAS[1]), cancel, adjust(DELTAS[2]), adjust(DELTAS[3]), cancel, adjust(DELTAS[4])];
      });
      const results = await inParallel(tasks, 20);
      const ids = entries.map((e) => e.id);
      const finals = new Map((await entriesOf(orders.map((o) => o.orderId))).map((e) => [e.id, e]));
      const canceledEvents = await db.query<{ id: string; points: number; change: number }>(
        `SELECT data->'pending_points'->>'id' AS id, (data->'pending_points'->>'points')::int AS points, (data->'voucher_pending_points_balance'->>'points')::int AS change
         FROM events WHERE project_id = $1 AND type = $2 AND data->'pending_points'->>'id' = ANY($3::text[])`,
        [who.project.id, CANCELED, ids],
      );
      const updatedEvents = await db.query<{ id: string; n: number }>(
        `SELECT data->'pending_points'->>'id' AS id, count(*)::int AS n FROM events WHERE project_id = $1 AND type = $2 AND data->'pending_points'->>'id' = ANY($3::text[]) GROUP BY 1`,
        [who.project.id, UPDATED, ids],
      );
      const got = ids.map((id) => {
        const mine = results.filter((r) => r.entry === id);
        const applied = mine.filter((r) => r.points !== 0 && r.key === '200');
        const event = canceledEvents.find((e) => e.id === id);
        return {
          id,
          cancels: mine.filter((r) => r.points === 0 && r.key === '204').length,
          status: finals.get(id)?.status,
          points: finals.get(id)?.points,
          updatedEvents: updatedEvents.find((e) => e.id === id)?.n ?? 0,
          canceledEvent: event && { points: event.points, change: event.change },
          want: 50 + applied.reduce((sum, r) => sum + r.points, 0),
          applied: applied.length,
        };
      });
      // The entry ends CANCELED by exactly one call, with 50 + the adjustments that answered 200, each with its
      // `updated` event, and its `canceled` event shows those points taken off the card's pending total.
      expect(got.filter((g) => g.cancels !== 1 || g.status !== 'CANCELED' || g.points !== g.want || g.updatedEvents !== g.applied || g.canceledEvent?.points !== g.want || g.canceledEvent?.change !== -g.want)).toEqual([]);
    }
    expect(adjusts.report(['200', STATE])).toEqual({ histogram: adjusts.histogram, unexpected: {} });
    expect(cancels.report(['204', STATE])).toEqual({ histogram: { '204': 2 * 20, [STATE]: 2 * 20 }, unexpected: {} });
    for (const code of codes) expect(await db.card(code)).toMatchObject({ balance: 0, pending_points: 0 });
    expect(await projectViolations(db, who.project.id)).toEqual([]);
  });

  /**
   * Two cards of one project set `near` points below a limit (directly: the ledger does not show it, so they
   * are checked as offsets and taken back after): one with a pending entry that its activation would take past
   * the limit, one that an accrual would. Only the sweep activates (as when Redis lost the jobs): it takes every
   * due entry at once, so a batch that failed on one entry would hold back another project's entry.
   */
  async function cardsNear(near: number, check: (r: { answers: Answers; poison: string; pendingCode: string; big: TestProject }) => Promise<void>) {
    const big = await createProject(stack.app, 'Cards near a limit');
    const normal = await createProject(stack.app, 'Card next to it');
    const answers = new Answers();
    const cardIds: string[] = [];
    const setNear = async (code: string) => {
      const card = await db.card(code);
      await db.query('UPDATE vouchers SET balance = balance + $2, points = points + $2 WHERE id = $1', [card.id, near]);
      cardIds.push(card.id);
    };
    const queue = stack.app.get<Queue>(getQueueToken('pending-points'), { strict: false });
    // Its cohort's job gone (BullMQ's remove answers 1 even for no job: the state before is what says it was there).
    const dropJob = async (projectId: string, entry: { activates_at: Date }) => {
      const { jobId } = cohortOf(projectId, entry.activates_at);
      expect(await queue.getJobState(jobId)).toBe('delayed');
      await queue.remove(jobId);
      expect(await queue.getJobState(jobId)).toBe('unknown');
    };
    try {
      const pending = await pointsCampaign(stack.app, big, [{ points: 1_000, days: 1 }]);
      const holder = unique('whale');
      const pendingCode = await enrol(stack.app, big, pending.campaign, holder);
      await setNear(pendingCode);
      answers.add(await payOrder(stack.app, big, { source_id: unique('whale-pending'), customer: holder }));
      const [poison] = await db.entries({ cardCode: pendingCode });
      await dropJob(big.project.id, poison);
      const accrual = await pointsCampaign(stack.app, big, [{ points: 1_000 }]);
      const earner = unique('whale');
      await setNear(await enrol(stack.app, big, accrual.campaign, earner));
      answers.add(await payOrder(stack.app, big, { source_id: unique('whale-accrual'), customer: earner }));

      // Another project's entry comes due after the big card's: the sweep activates it all the same.
      const small = await pointsCampaign(stack.app, normal, [{ points: 9, days: 1 }]);
      const minnow = unique('minnow');
      const smallCode = await enrol(stack.app, normal, small.campaign, minnow);
      const order = await payOrder(stack.app, normal, { source_id: unique('minnow-order'), customer: minnow });
      expect(order.status).toBe(200);
      const [entry] = await db.entries({ orderId: order.body.id });
      await dropJob(normal.project.id, entry);
      const status = async () => (await db.entries({ orderId: order.body.id }))[0].status;
      await waitFor(async () => ((await status()) === 'ACTIVATED' ? true : undefined), { timeoutMs: DAY_MS + 4 * SWEEP_MS + 5_000, intervalMs: 100 }).catch(() => undefined);
      expect({ otherProjectsEntry: await status(), answers: answers.histogram }).toEqual({ otherProjectsEntry: 'ACTIVATED', answers: answers.histogram });
      expect(await db.card(smallCode)).toMatchObject({ balance: 9, points: 9, pending_points: 0 });
      expect(await projectViolations(db, normal.project.id)).toEqual([]);

      await check({ answers, poison: poison.id, pendingCode, big });
      expect(Object.keys(answers.histogram).filter((key) => Number(key.slice(0, 3)) >= 500)).toEqual([]);
      const offsets = Object.fromEntries(cardIds.map((id) => [id, { balance: near, points: near }]));
      expect(await projectViolations(db, big.project.id, offsets)).toEqual([]);
    } finally {
      // Leave no entry that cannot be activated and no card off its ledger behind for the suites that follow.
      for (const e of await db.query<{ id: string; code: string }>("SELECT p.id, v.code FROM loyalty_pending_points p JOIN vouchers v ON v.id = p.voucher_id WHERE p.project_id = $1 AND p.status = 'PENDING'", [big.project.id])) {
        await stack.http().post(`${entryPath(e.code, e.id)}/cancel`).set(big.headers);
      }
      await db.query('UPDATE vouchers SET balance = balance - $2, points = points - $2 WHERE id = ANY($1::text[])', [cardIds, near]);
    }
  }

  it('cards past the int4 limit: every order and activation is applied (the point columns are bigint)', async () => {
    await cardsNear(2_147_483_000, async ({ answers, poison, pendingCode }) => {
      expect(answers.histogram).toEqual({ '200': 2 });
      // The sweep activated the entry that would have overflowed an int4 card (it was due before the other project's).
      expect((await db.entries({ cardCode: pendingCode })).map((e) => [e.id, e.status])).toEqual([[poison, 'ACTIVATED']]);
      expect(await db.card(pendingCode)).toMatchObject({ balance: 2_147_483_000 + 1_000, pending_points: 0 });
    });
  });

  it('cards at the 2^53 - 1 cap: the order is refused with 400, the entry is set aside with its error, and no other project waits for it', async () => {
    const CAP = Number.MAX_SAFE_INTEGER;
    await cardsNear(CAP - 500, async ({ answers, poison, pendingCode, big }) => {
      // The pending order answers 200 (nothing reaches the balance yet); the accrual past the cap 400.
      expect(answers.histogram).toEqual({ '200': 1, '400 invalid_payload': 1 });
      // The sweep tried the entry and set it aside: still PENDING, counted in pending_points, with its error shown.
      const listed = await waitFor(async () => {
        const res = await stack.http().get(`/v1/loyalties/members/${encodeURIComponent(pendingCode)}/pending-points`).set(big.headers);
        return res.body.data?.[0]?.activation_error ? res.body.data[0] : undefined;
      });
      expect(listed).toMatchObject({ id: poison, status: 'PENDING', points: 1_000 });
      expect(listed.activation_error).toBe("a card's points would pass 9007199254740991, the most a card can hold");
      // By hand it is tried again, and refused with 400.
      const manual = await stack.http().post(`${entryPath(pendingCode, poison)}/activate`).set(big.headers);
      expect(manual.body).toMatchObject({ code: 400, key: 'invalid_amount', details: "The pending points cannot be activated: a card's points would pass 9007199254740991, the most a card can hold" });
      expect(await db.card(pendingCode)).toMatchObject({ balance: CAP - 500, pending_points: 1_000 });
    });
  });
});
