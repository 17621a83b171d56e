import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { WorkerLifecycle } from '../../src/app/worker.module.js';
import { DELETION_CARD_BATCH } from '../../src/points/campaign-deletion/campaign-deletion.service.js';
import { useStack } from '../support/fixture.js';
import { createFinishedCampaign, startWorkerProcess, testConfig, waitFor } from '../support/harness.js';
import { enrol, payOrder, pointsCampaign, unique } from '../support/points.js';

const SWEEP_MS = '100';

/**
 * A forced campaign deletion (`DELETE /v1/loyalties/{id}?force=true`, issue 36): answered at once with an
 * IN_PROGRESS async action, the campaign hidden; the worker deletes its cards, their history and members in
 * batches of its own transactions, goes on after a worker died mid-deletion, takes turns between projects,
 * and turns the action DONE with the last batch.
 */
describe('forced campaign deletion, in the worker', () => {
  const workers = new Set<ChildProcess>();
  const stack = useStack({
    config: { CAMPAIGN_DELETION_SWEEP_MS: SWEEP_MS, PENDING_POINTS_DAY_MS: '60000', RATE_LIMIT_PER_SECOND: '0' },
    worker: true,
    pointsDb: true,
    projects: ['Deletion project', 'Other deletion project'],
    beforeClose: () => {
      for (const worker of workers) worker.kill('SIGKILL');
    },
  });
  const { db } = stack;
  const action = (id: string, who = stack.a) => stack.http().get(`/v1/async-actions/${id}`).set(who.headers);
  const forceDelete = async (id: string, who = stack.a) => {
    const res = await stack.http().delete(`/v1/loyalties/${id}?force=true`).set(who.headers);
    expect(res.status).toBe(200);
    return res.body.async_action_id as string;
  };
  const actionDone = (id: string, who = stack.a) => waitFor(async () => ((await action(id, who)).body.status === 'DONE' ? (await action(id, who)).body : undefined), { timeoutMs: 60_000, intervalMs: 100 });
  /** Rows left of a campaign, table by table. */
  const leftOf = async (campaignId: string, programId: string) => {
    const [row] = await db.query<Record<string, number>>(
      `SELECT (SELECT count(*)::int FROM vouchers WHERE campaign_id = $1) AS cards,
              (SELECT count(*)::int FROM voucher_transactions WHERE campaign_id = $1) AS ledger,
              (SELECT count(*)::int FROM loyalty_points_buckets WHERE campaign_id = $1) AS buckets,
              (SELECT count(*)::int FROM loyalty_pending_points WHERE campaign_id = $1) AS entries,
              (SELECT count(*)::int FROM members WHERE program_id = $2) AS members,
              (SELECT count(*)::int FROM earning_rules WHERE campaign_id = $1) AS rules,
              (SELECT count(*)::int FROM loyalty_programs WHERE id = $2) AS programs,
              (SELECT count(*)::int FROM campaigns WHERE id = $1) AS campaigns`,
      [campaignId, programId],
    );
    return row;
  };
  const nothing = { cards: 0, ledger: 0, buckets: 0, entries: 0, members: 0, rules: 0, programs: 0, campaigns: 0 };

  it('answers IN_PROGRESS at once and hides the campaign; the worker deletes cards, history and members in batches, and the action turns DONE', async () => {
    const { campaign, ruleIds } = await pointsCampaign(stack.app, stack.a, [{ points: 10 }, { points: 4, days: 1 }], { vouchers_count: 30, voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 5 } } });
    const customers = [unique('gone-1'), unique('gone-2')];
    for (const customer of customers) {
      await enrol(stack.app, stack.a, campaign, customer);
      expect((await payOrder(stack.app, stack.a, { source_id: unique('gone-order'), customer })).status).toBe(200);
    }
    const bystander = await pointsCampaign(stack.app, stack.a, [{ points: 10 }]);
    const bystanderCode = await enrol(stack.app, stack.a, bystander.campaign, unique('stays'));
    const before = await leftOf(bystander.campaign.id, bystander.campaign.program_id);
    const cards = 30;
    expect(await leftOf(campaign.id, campaign.program_id)).toMatchObject({ cards, members: 2, rules: ruleIds.length, entries: 2 });

    await stack.stopWorker();
    const actionId = await forceDelete(campaign.id);
    const started = (await action(actionId)).body;
    expect(started).toMatchObject({ id: actionId, type: 'CAMPAIGN.VOUCHERS_DELETE', status: 'IN_PROGRESS', result: null, progress: 0, object: 'async_action' });
    // Hidden at once: no answer shows it, its name is free, its cards are 404; the rows wait for the worker.
    expect((await stack.http().get(`/v1/loyalties/${campaign.id}`).set(stack.a.headers)).status).toBe(404);
    expect((await stack.http().delete(`/v1/loyalties/${campaign.id}?force=true`).set(stack.a.headers)).status).toBe(404);
    expect((await stack.http().post('/v1/loyalties').set(stack.a.headers).send({ name: campaign.name })).status).toBe(200);
    const aCard = (await db.query<{ code: string }>('SELECT code FROM vouchers WHERE campaign_id = $1 AND member_id IS NOT NULL LIMIT 1', [campaign.id]))[0].code;
    expect((await stack.http().post(`/v1/loyalties/members/${aCard}/balance`).set(stack.a.headers).send({ points: 1 })).status).toBe(404);
    expect((await leftOf(campaign.id, campaign.program_id)).cards).toBe(cards);

    await stack.startWorker();
    const done = await actionDone(actionId);
    expect(done).toMatchObject({ status: 'DONE', progress: 100, result: { message: `Deleted ${cards} vouchers.`, done_count: cards } });
    expect(Date.parse(done.updated_at) - Date.parse(done.created_at)).toBe(done.processing_time);
    expect(await leftOf(campaign.id, campaign.program_id)).toEqual(nothing);
    // The other campaign is untouched.
    expect(await leftOf(bystander.campaign.id, bystander.campaign.program_id)).toEqual(before);
    expect((await stack.http().post(`/v1/loyalties/members/${bystanderCode}/balance`).set(stack.a.headers).send({ points: 1 })).status).toBe(200);
    expect(await db.brokenCards()).toEqual([]);
  }, 90_000);

  it(`batches of ${DELETION_CARD_BATCH} cards, each committed: a worker killed mid-deletion leaves the rest to the next sweep, which finishes`, async () => {
    const total = 2 * DELETION_CARD_BATCH + 500;
    const campaign = await createFinishedCampaign<{ id: string; program_id: string }>(stack.app, stack.a, { name: unique('Large'), vouchers_count: total });
    await stack.stopWorker();
    const actionId = await forceDelete(campaign.id);
    // The campaign's last card held by another transaction: the batches before it commit, the one that takes it
    // waits. A batch takes the cards in the order of the campaign's index, whose equal keys are in heap order: the
    // card last written comes last.
    const blocker = new pg.Client({ connectionString: testConfig().databaseUrl });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT id FROM vouchers WHERE id = (SELECT id FROM vouchers WHERE campaign_id = $1 ORDER BY ctid DESC LIMIT 1) FOR UPDATE', [campaign.id]);
      const worker = await startWorkerProcess({ CAMPAIGN_DELETION_SWEEP_MS: SWEEP_MS, DATABASE_LOCK_TIMEOUT_MS: '0', LOG_LEVEL: 'info' }, workers);
      await waitFor(async () => ((await leftOf(campaign.id, campaign.program_id)).cards === total - 2 * DELETION_CARD_BATCH ? true : undefined), { timeoutMs: 60_000, intervalMs: 100 });
      const midway = (await action(actionId)).body;
      expect(midway.status).toBe('IN_PROGRESS');
      expect(midway.progress).toBeGreaterThan(0);
      expect(midway.progress).toBeLessThan(100);
      expect((await leftOf(campaign.id, campaign.program_id)).cards).toBeGreaterThan(0);
      worker.kill('SIGKILL');
      await new Promise((resolve) => worker.once('exit', resolve));
    } finally {
      await blocker.query('ROLLBACK');
      await blocker.end();
    }
    // The in-process worker's sweep takes the deletion over once the dead worker's lease runs out (60 s):
    // shortened here by hand, as if that time had passed.
    await db.query('UPDATE campaigns SET deletion_lease_until = NULL WHERE id = $1', [campaign.id]);
    await stack.startWorker();
    expect(await actionDone(actionId)).toMatchObject({ status: 'DONE', result: { message: `Deleted ${total} vouchers.`, done_count: total } });
    expect(await leftOf(campaign.id, campaign.program_id)).toEqual(nothing);
  }, 120_000);

  it('takes turns between projects: a small deletion of another project is done while a large one goes on', async () => {
    const large = await Promise.all([0, 1].map(() => createFinishedCampaign<{ id: string; program_id: string }>(stack.app, stack.a, { name: unique('Large turn'), vouchers_count: 3 * DELETION_CARD_BATCH })));
    const small = await createFinishedCampaign<{ id: string; program_id: string }>(stack.app, stack.b, { name: unique('Small turn'), vouchers_count: 5 });
    await stack.stopWorker();
    const largeActions = [];
    for (const campaign of large) largeActions.push(await forceDelete(campaign.id));
    const smallAction = await forceDelete(small.id, stack.b);
    // One worker, one run of the sweep: the turns' order decides which deletion ends first.
    await stack.startWorker(testConfig({ CAMPAIGN_DELETION_SWEEP_MS: '3600000' }));
    await stack.worker.get(WorkerLifecycle).sweeps!.runNow('campaign-deletion');
    const smallDone = await actionDone(smallAction, stack.b);
    const largeDone = await Promise.all(largeActions.map((id) => actionDone(id)));
    // Project b's 5 cards took a turn between a's batches (a's 6,000 cards are 12 batches and more).
    expect(Date.parse(smallDone.updated_at)).toBeLessThan(Math.min(...largeDone.map((done) => Date.parse(done.updated_at))));
    for (const campaign of [...large, small]) expect(await leftOf(campaign.id, campaign.program_id)).toEqual(nothing);
  }, 120_000);
});
