import type { ChildProcess } from 'node:child_process';
import { useStack } from '../support/fixture.js';
import { startWorkerProcess, waitFor } from '../support/harness.js';
import { Answers, enrol, inParallel, payOrder, pointsCampaign, unique } from '../support/points.js';

/**
 * Balance changes and paid orders on a campaign's cards while the campaign is deleted, to the bin and for
 * good (issue 36; two workers carry out forced deletions): no answer is a 5xx (a change that finds its card
 * gone is 404, as a card of a deleted campaign is), and the project's other cards stay sound.
 */
describe('balance changes and orders racing a campaign deletion', () => {
  const workers = new Set<ChildProcess>();
  const stack = useStack({
    worker: true,
    pointsDb: true,
    config: { RATE_LIMIT_PER_SECOND: '0', PENDING_POINTS_DAY_MS: '60000', CAMPAIGN_DELETION_SWEEP_MS: '100' },
    projects: ['Deletion races project'],
    beforeClose: () => {
      for (const worker of workers) worker.kill('SIGKILL');
    },
  });
  const { db } = stack;
  const change = (code: string, body: object, campaignId?: string) =>
    stack
      .http()
      .post(campaignId ? `/v1/loyalties/${campaignId}/members/${code}/balance` : `/v1/loyalties/members/${code}/balance`)
      .set(stack.a.headers)
      .send(body);
  const action = (id: string) => stack.http().get(`/v1/async-actions/${id}`).set(stack.a.headers);

  for (const force of [false, true]) {
    it(`${force ? 'a forced deletion' : 'a move to the bin'} amid changes and orders on its cards: no 5xx, in each of 3 rounds`, async () => {
      if (force) await startWorkerProcess({ CAMPAIGN_DELETION_SWEEP_MS: '100', PENDING_POINTS_DAY_MS: '60000', LOG_LEVEL: 'info' }, workers);
      // A bystander campaign whose cards must stay untouched and sound.
      const { campaign: other } = await pointsCampaign(stack.app, stack.a, [{ points: 10 }]);
      const bystander = unique('bystander');
      const otherCode = await enrol(stack.app, stack.a, other, bystander);
      const allowed = ['200', '404 not_found'];
      for (let round = 0; round < 3; round += 1) {
        const { campaign } = await pointsCampaign(stack.app, stack.a, [{ points: 10 }, { points: 4, days: 1 }]);
        const customers = Array.from({ length: 8 }, () => unique('deletion-race'));
        const codes: string[] = [];
        for (const customer of customers) {
          const code = await enrol(stack.app, stack.a, campaign, customer);
          expect((await change(code, { points: 100 })).status).toBe(200);
          codes.push(code);
        }
        const answers = new Answers();
        const deletions: { status: number; body: { async_action_id?: string } }[] = [];
        const work = [
          ...codes.flatMap((code, i) => [
            async () => answers.add(await change(code, { points: 5 })),
            async () => answers.add(await change(code, { points: -3 }, campaign.id)),
            async () => answers.add(await payOrder(stack.app, stack.a, { source_id: unique('race-order'), customer: customers[i] })),
            async () => answers.add(await change(code, { points: -2 })),
          ]),
          async () => answers.add(await change(otherCode, { points: 1 })),
        ];
        work.splice(work.length >> 2, 0, async () => {
          const res = await stack.http().delete(`/v1/loyalties/${campaign.id}${force ? '?force=true' : ''}`).set(stack.a.headers);
          deletions.push(res);
          return answers.add(res);
        });
        await inParallel(work, 12);
        expect(answers.report(allowed).unexpected).toEqual({});
        expect(deletions.map((d) => d.status)).toEqual([200]);
        // The deletion's action ends DONE (a forced one once the worker deleted every card).
        const actionId = deletions[0].body.async_action_id as string;
        await waitFor(async () => ((await action(actionId)).body.status === 'DONE' ? true : undefined), { timeoutMs: 30_000 });
        expect((await stack.http().get(`/v1/loyalties/${campaign.id}`).set(stack.a.headers)).status).toBe(404);
        const cards = await db.count('SELECT 1 FROM vouchers WHERE campaign_id = $1', [campaign.id]);
        expect(cards).toBe(force ? 0 : codes.length);
        // After the deletion: the cards are 404 (gone, or of a deleted campaign), never a 5xx.
        for (const code of codes) expect((await change(code, { points: 1 })).status).toBe(404);
      }
      expect((await change(otherCode, { points: -1 })).status).toBe(200);
      // The cards left (the bystander's, and those of a campaign in the bin) agree with their ledger, entries and
      // buckets. (The project's event log keeps the events of entries deleted with their cards.)
      expect(await db.brokenCards()).toEqual([]);
    }, 120_000);
  }
});
