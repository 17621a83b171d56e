import { useStack } from '../support/fixture.js';
import { type TestProject, createProject } from '../support/harness.js';
import { Answers, enrol, inParallel, payOrder, pointsCampaign, projectViolations, unique } from '../support/points.js';

/** Parallel clients, and rounds of PAID orders (distinct source ids) spread over the cards of the test. */
const CLIENTS = 20;
const ROUNDS = 5;
const ORDERS_PER_ROUND = 40;

/**
 * The money path under concurrency: many PAID orders at once for the same customers, so that every earning
 * transaction of a round wants the same card(s). Whatever the rules (pending only, accrual only, both, over
 * two campaigns, auto-join), every order is answered 200 and earns once under each rule: no deadlock reaches
 * the client, and every card equals its ledger and its PENDING entries, with one event per entry.
 * No worker runs and pending days are long: entries stay PENDING.
 */
describe('concurrent paid orders on the same cards', () => {
  // No rate limit: the races send a few hundred requests a second from one project. A card's lock is held for
  // milliseconds, so no statement here should wait 5 s (the default 15 s only makes a failing run slower).
  const stack = useStack({ config: { RATE_LIMIT_PER_SECOND: '0', DATABASE_QUERY_TIMEOUT_MS: '5000' }, pointsDb: true });
  const { db } = stack;

  /** ROUNDS rounds of ORDERS_PER_ROUND PAID orders, customer after customer, CLIENTS at a time; the answers. */
  async function payInRounds(who: TestProject, customers: string[]): Promise<Answers> {
    const answers = new Answers();
    for (let round = 0; round < ROUNDS; round += 1) {
      const tasks = Array.from({ length: ORDERS_PER_ROUND }, (_, i) => () => payOrder(stack.app, who, { source_id: unique(`race-${round}`), customer: customers[i % customers.length] }));
      const statuses = (await inParallel(tasks, CLIENTS)).map((res) => (answers.add(res), res.status));
      // A round with server errors says enough (and each costs seconds of lock waits): stop there.
      if (statuses.some((status) => status >= 500)) break;
    }
    return answers;
  }

  /** All answers 200 (the histogram shows what else came), and every invariant of the project's cards holds. */
  async function expectAllPaidAndSound(who: TestProject, answers: Answers, orders: number): Promise<void> {
    expect(answers.report(['200'])).toEqual({ histogram: { '200': orders }, unexpected: {} });
    expect(await projectViolations(db, who.project.id)).toEqual([]);
  }

  const earnings = (who: TestProject) => db.count('SELECT 1 FROM order_earnings WHERE project_id = $1', [who.project.id]);
  const pendingEntries = (who: TestProject) => db.count("SELECT 1 FROM loyalty_pending_points WHERE project_id = $1 AND status = 'PENDING'", [who.project.id]);

  it('a pending-only rule: 5 rounds of 40 paid orders on two cards, 20 clients at once, all earn once', async () => {
    const who = await createProject(stack.app, 'Pending-only races');
    const { campaign } = await pointsCampaign(stack.app, who, [{ points: 7, days: 30 }]);
    const customers = [unique('pending-a'), unique('pending-b')];
    const codes = await Promise.all(customers.map((customer) => enrol(stack.app, who, campaign, customer)));
    const answers = await payInRounds(who, customers);

    await expectAllPaidAndSound(who, answers, ROUNDS * ORDERS_PER_ROUND);
    const each = (ROUNDS * ORDERS_PER_ROUND) / customers.length;
    for (const code of codes) expect(await db.card(code)).toMatchObject({ balance: 0, points: 0, pending_points: 7 * each });
    expect(await earnings(who)).toBe(ROUNDS * ORDERS_PER_ROUND);
    expect(await pendingEntries(who)).toBe(ROUNDS * ORDERS_PER_ROUND);
    // Concurrent paid orders of the project shared transactions (batches, issue 40): each order's row names the
    // transaction that wrote it, and 20 clients at a time leave far fewer of them than orders.
    const [{ n: transactions }] = await db.query<{ n: number }>('SELECT count(DISTINCT xmin::text)::int AS n FROM orders WHERE project_id = $1', [who.project.id]);
    expect(transactions).toBeLessThan((ROUNDS * ORDERS_PER_ROUND) / 2);
  });

  it('an accrual-only rule: 5 rounds of 40 paid orders on two cards, 20 clients at once, all earn once', async () => {
    const who = await createProject(stack.app, 'Accrual-only races');
    const { campaign } = await pointsCampaign(stack.app, who, [{ points: 5 }]);
    const customers = [unique('accrual-a'), unique('accrual-b')];
    const codes = await Promise.all(customers.map((customer) => enrol(stack.app, who, campaign, customer)));
    const answers = await payInRounds(who, customers);

    await expectAllPaidAndSound(who, answers, ROUNDS * ORDERS_PER_ROUND);
    const each = (ROUNDS * ORDERS_PER_ROUND) / customers.length;
    for (const code of codes) expect(await db.card(code)).toMatchObject({ balance: 5 * each, points: 5 * each, pending_points: 0 });
    expect(await earnings(who)).toBe(ROUNDS * ORDERS_PER_ROUND);
    expect(await db.count("SELECT 1 FROM voucher_transactions WHERE project_id = $1 AND type = 'POINTS_ACCRUAL'", [who.project.id])).toBe(ROUNDS * ORDERS_PER_ROUND);
  });

  it('accrual and pending rules in two campaigns, each customer a member of both: every order earns under all four rules', async () => {
    const who = await createProject(stack.app, 'Mixed rules races');
    const first = await pointsCampaign(stack.app, who, [{ points: 5 }, { points: 7, days: 30 }]);
    // 1 point per 100 of the amount (1000 → 10), and 3 pending.
    const second = await pointsCampaign(stack.app, who, [{ every: 100, points: 1 }, { points: 3, days: 30 }]);
    const customers = [unique('mixed-a'), unique('mixed-b')];
    const cards = await Promise.all(customers.map(async (customer) => [await enrol(stack.app, who, first.campaign, customer), await enrol(stack.app, who, second.campaign, customer)]));
    const answers = await payInRounds(who, customers);

    await expectAllPaidAndSound(who, answers, ROUNDS * ORDERS_PER_ROUND);
    const each = (ROUNDS * ORDERS_PER_ROUND) / customers.length;
    for (const [inFirst, inSecond] of cards) {
      expect(await db.card(inFirst)).toMatchObject({ balance: 5 * each, points: 5 * each, pending_points: 7 * each });
      expect(await db.card(inSecond)).toMatchObject({ balance: 10 * each, points: 10 * each, pending_points: 3 * each });
    }
    expect(await earnings(who)).toBe(4 * ROUNDS * ORDERS_PER_ROUND);
    expect(await pendingEntries(who)).toBe(2 * ROUNDS * ORDERS_PER_ROUND);
  });

  it('auto-join: the first paid orders of new customers, 4 at once each, enrol each customer once and all earn', async () => {
    const who = await createProject(stack.app, 'Auto-join races');
    const accrual = await pointsCampaign(stack.app, who, [{ points: 5 }], { auto_join: true });
    const pending = await pointsCampaign(stack.app, who, [{ points: 7, days: 30 }], { auto_join: true });
    const ORDERS_EACH = 4;
    const answers = new Answers();
    const customers: string[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const fresh = Array.from({ length: 10 }, () => unique('newcomer'));
      customers.push(...fresh);
      // A customer's orders are consecutive tasks, so they go out together and race its enrolment.
      const tasks = fresh.flatMap((customer) => Array.from({ length: ORDERS_EACH }, () => () => payOrder(stack.app, who, { source_id: unique('first-purchase'), customer })));
      for (const res of await inParallel(tasks, CLIENTS)) answers.add(res);
    }

    await expectAllPaidAndSound(who, answers, customers.length * ORDERS_EACH);
    const members = await db.query<{ source_id: string; program_id: string; n: number }>(
      `SELECT c.source_id, m.program_id, count(*)::int AS n FROM members m JOIN customers c ON c.id = m.customer_id
       WHERE m.project_id = $1 GROUP BY 1, 2`,
      [who.project.id],
    );
    const cards = await db.query<{ source_id: string; campaign_id: string; n: number; balance: number; pending: number }>(
      `SELECT c.source_id, v.campaign_id, count(*)::int AS n, sum(v.balance)::int AS balance, sum(v.pending_points)::int AS pending
       FROM vouchers v JOIN customers c ON c.id = v.holder_id WHERE v.project_id = $1 GROUP BY 1, 2`,
      [who.project.id],
    );
    // One membership per (customer, program) and one card per (customer, campaign), with every order's points.
    const byKey = <T extends object>(rows: T[]) => rows.map((row) => JSON.stringify(row)).sort();
    const programs = [accrual.campaign.program_id, pending.campaign.program_id];
    expect(byKey(members)).toEqual(byKey(customers.flatMap((source_id) => programs.map((program_id) => ({ source_id, program_id, n: 1 })))));
    const wanted = [
      { campaign_id: accrual.campaign.id, n: 1, balance: 5 * ORDERS_EACH, pending: 0 },
      { campaign_id: pending.campaign.id, n: 1, balance: 0, pending: 7 * ORDERS_EACH },
    ];
    expect(byKey(cards)).toEqual(byKey(customers.flatMap((source_id) => wanted.map((card) => ({ source_id, ...card })))));
    expect(await earnings(who)).toBe(2 * customers.length * ORDERS_EACH);
  });
  it('one card: 20 enrolments race for its code (one wins), then rounds of its paid orders race enrolments asking for it again', async () => {
    const who = await createProject(stack.app, 'Publication races');
    await stack.startWorker(); // generates the campaign's cards, then stops: the suite runs no worker
    const { campaign } = await pointsCampaign(stack.app, who, [{ points: 5 }, { points: 7, days: 30 }], {
      vouchers_count: 3,
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 20 }, code_config: { pattern: 'PUB-######' } },
    });
    await stack.stopWorker();
    const [card] = await db.query<{ id: string; code: string }>('SELECT id, code FROM vouchers WHERE campaign_id = $1 ORDER BY code LIMIT 1', [campaign.id]);
    const claim = (customer: string) => () => stack.http().post(`/v1/loyalties/${campaign.id}/members`).set(who.headers).send({ customer: { source_id: customer }, voucher: card.code });

    // The card's publication: one enrolment wins, the others find it published.
    const claimants = Array.from({ length: CLIENTS }, (_, i) => unique(`claimant-${i}`));
    const first = await inParallel(claimants.map(claim), CLIENTS);
    expect(first.map((res) => res.status).sort()).toEqual([200, ...Array(CLIENTS - 1).fill(400)]);
    for (const res of first.filter((r) => r.status === 400)) expect(res.body).toMatchObject({ key: 'voucher_already_published', resource_id: card.id });
    const holder = claimants[first.findIndex((res) => res.status === 200)];

    // Orders of the holder lock the card while enrolments try to publish it again (they wait for its lock,
    // then find it taken): every order earns, every late enrolment is 400, none is a 5xx.
    const answers = new Answers();
    for (let round = 0; round < ROUNDS; round += 1) {
      const tasks = Array.from({ length: 30 }, (_, i) => (i % 3 === 2 ? claim(unique(`late-${round}`)) : () => payOrder(stack.app, who, { source_id: unique(`pub-${round}`), customer: holder })));
      for (const res of await inParallel(tasks, CLIENTS)) answers.add(res);
    }
    const orders = ROUNDS * 20;
    expect(answers.report(['200', '400 voucher_already_published'])).toEqual({ histogram: { '200': orders, '400 voucher_already_published': ROUNDS * 10 }, unexpected: {} });
    expect(await projectViolations(db, who.project.id)).toEqual([]);
    expect(await db.card(card.code)).toMatchObject({ balance: 20 + 5 * orders, points: 20 + 5 * orders, pending_points: 7 * orders });
    const [owner] = await db.query<{ holders: number }>('SELECT count(DISTINCT holder_id)::int AS holders FROM vouchers WHERE id = $1', [card.id]);
    expect(owner.holders).toBe(1);
    expect(await db.count("SELECT 1 FROM voucher_transactions WHERE voucher_id = $1 AND type = 'POINTS_ADDITION'", [card.id])).toBe(1);
    expect(await db.count('SELECT 1 FROM members m JOIN loyalty_programs p ON p.id = m.program_id WHERE p.campaign_id = $1', [campaign.id])).toBe(1);
  });
});
