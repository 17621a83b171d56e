import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { internalCause } from '../../src/events/recording/event-recording.js';
import { cohortOf } from '../../src/points/pending/activation-cohorts.js';
import { ActivationService } from '../../src/points/pending/activation.service.js';
import { useStack } from '../support/fixture.js';
import { REQUEST_ID, waitFor } from '../support/harness.js';
import { enrol, payOrder, pointsCampaign, unique } from '../support/points.js';

/** One "day" of pending points lasts this long here; the sweep runs this often. */
const DAY_MS = 1_000;
const SWEEP_MS = 1_000;
const ACTIVATED = 'customer.voucher.loyalty_card.pending_points.activated';
const ENTRY_ID = /^lopp_[a-f0-9]{18}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UPDATED = 'customer.voucher.loyalty_card.pending_points.updated';
const CANCELED = 'customer.voucher.loyalty_card.pending_points.canceled';
const ADDED = 'customer.voucher.loyalty_card.pending_points.added';

type Entry = Record<string, unknown> & { id: string; activates_at: string; activates_at_time: string };
type Transaction = { id: string; created_at: string; details: { pending_points: Entry } };

/** An entry's dates as Voucherify's schema has them: `activates_at` the UTC day of `activates_at_time`. */
function expectEntryDates(entry: Entry): void {
  expect(entry.activates_at_time).toMatch(ISO);
  expect(entry.activates_at).toBe(entry.activates_at_time.slice(0, 10));
}

describe('pending points: activation on time, by hand, and exactly once', () => {
  const stack = useStack({
    config: { PENDING_POINTS_DAY_MS: String(DAY_MS), PENDING_POINTS_SWEEP_MS: String(SWEEP_MS) },
    worker: true,
    projects: ['Pending points project', 'Other pending points project'],
    pointsDb: true,
    // However the entries of this suite ended, every card still equals its ledger and its PENDING entries.
    beforeClose: async ({ db }) => expect(await db.brokenCards()).toEqual([]),
  });
  const { db } = stack;

  /** A member with one paid order under one pending rule of `days`; the card code, order and entry. */
  async function pendingFixture(days: number, points = 40, who = stack.a) {
    const { campaign, ruleIds } = await pointsCampaign(stack.app, who, [{ points, days }]);
    const customer = unique('holder');
    const code = await enrol(stack.app, who, campaign, customer);
    const order = (await payOrder(stack.app, who, { source_id: unique('order'), customer })).body as { id: string; source_id: string; customer_id: string };
    const [entry] = await db.entries({ orderId: order.id });
    return { campaign, ruleId: ruleIds[0], code, order, entryId: entry.id, customerId: order.customer_id };
  }
  const entryPath = (code: string, id: string) => `/v1/loyalties/members/${code}/pending-points/${id}`;
  const eventsFor = async (entryId: string, type: string, who = stack.a) =>
    ((await stack.http().get('/v1/events').query({ type, limit: 100 }).set(who.headers)).body.data as { data: { pending_points: { id: string } } }[]).filter((e) => e.data.pending_points.id === entryId);
  /** The card's activation row, read through both transaction routes (member and campaign member), which agree. */
  async function activationRow(campaignId: string, code: string): Promise<Transaction> {
    const byMember = await stack.http().get(`/v1/loyalties/members/${code}/transactions`).set(stack.a.headers);
    const byCampaign = await stack.http().get(`/v1/loyalties/${campaignId}/members/${code}/transactions`).set(stack.a.headers);
    expect(byCampaign.body.data).toEqual(byMember.body.data);
    const rows = (byMember.body.data as (Transaction & { type: string })[]).filter((t) => t.type === 'PENDING_POINTS_ACTIVATION');
    expect(rows).toHaveLength(1);
    return rows[0];
  }

  it('a paid order creates an entry that the worker activates on time: balance, ledger and event', async () => {
    const { campaign, ruleId, code, order, entryId, customerId } = await pendingFixture(1);
    const list = await stack.http().get(`/v1/loyalties/members/${code}/pending-points`).set(stack.a.headers);
    expect(list.body).toMatchObject({ object: 'list', data_ref: 'data', has_more: false });
    const [entry] = list.body.data;
    const activatesAt = new Date(new Date(entry.created_at).getTime() + DAY_MS).toISOString();
    expect(entry).toEqual({
      id: expect.stringMatching(ENTRY_ID),
      voucher_id: expect.stringMatching(/^v_/),
      campaign_id: campaign.id,
      customer_id: customerId,
      order_id: order.id,
      points: 40,
      activates_at: activatesAt.slice(0, 10),
      activates_at_time: activatesAt,
      status: 'PENDING',
      details: {
        event: { id: expect.stringMatching(/^evcus_/), type: 'customer.order.paid', group_id: expect.stringMatching(REQUEST_ID), entity_id: customerId, created_at: expect.any(String), category: 'ACTION', event_source: { channel: 'API', api_key: { name: 'Primary', app_id: stack.a.app_id } } },
        earning_rule: { id: ruleId, source: { banner: '' } },
        order: { id: order.id, source_id: order.source_id },
      },
      created_at: expect.stringMatching(ISO),
    });
    // Never updated: no `updated_at` at all (Voucherify's schema has no null there).
    expect(entry).not.toHaveProperty('updated_at');
    for (const path of [`/v1/loyalties/${campaign.id}/members/${code}/pending-points`, `/v1/loyalties/${campaign.id}/pending-points`]) {
      expect((await stack.http().get(path).set(stack.a.headers)).body.data).toEqual([entry]);
    }
    // The `added` event shows the entry exactly as the list does (the database builds both shapes).
    const [added] = await eventsFor(entryId, 'customer.voucher.loyalty_card.pending_points.added');
    expect((added as unknown as { data: { pending_points: unknown } }).data.pending_points).toEqual(entry);
    expect((added as unknown as { data: { pending_points: unknown } }).data.pending_points).not.toHaveProperty('updated_at');
    expect((added as unknown as { data: Record<string, unknown> }).data).toMatchObject({
      voucher: { code, loyalty_card: { points: 0, balance: 0, pending_points: 40 } },
      voucher_pending_points_balance: { points: 40, total: 40, object: 'balance', operation_type: 'AUTOMATIC' },
      order: { id: order.id, source_id: order.source_id, status: 'PAID' },
      customer: { id: customerId },
    });
    const cardBefore = await stack.http().get(`/v1/loyalties/members/${code}`).set(stack.a.headers);
    expect(cardBefore.body.loyalty_card).toEqual({ points: 0, balance: 0, pending_points: 40, expired_points: 0, subtracted_points: 0, next_expiration_points: 0 });
    const member = await stack.http().get(`/v2/loyalties/programs/${campaign.program_id}/members`).set(stack.a.headers);
    const withCards = await stack.http().get(`/v2/loyalties/programs/${campaign.program_id}/members/${member.body.data[0].id}`).set(stack.a.headers);
    expect(withCards.body.cards[0].card.balance).toEqual({ points: 0, pending_points: 40 });

    const [activated] = await waitFor(async () => ((await eventsFor(entryId, ACTIVATED)).length ? eventsFor(entryId, ACTIVATED) : undefined), { timeoutMs: 10_000 });
    const [settled] = await db.entries({ orderId: order.id });
    expect(settled.status).toBe('ACTIVATED');
    // On time: the delayed job runs at activates_at (a generous bound; bench/ measures the real lateness).
    expect((settled.settled_at as Date).getTime() - settled.activates_at.getTime()).toBeLessThan(SWEEP_MS);
    expect(settled.settled_at!.getTime()).toBeGreaterThanOrEqual(settled.activates_at.getTime());

    expect(await db.card(code)).toMatchObject({ balance: 40, points: 40, pending_points: 0 });
    const tx = await stack.http().get(`/v1/loyalties/members/${code}/transactions`).set(stack.a.headers);
    expect(tx.body.data).toHaveLength(1);
    expect(tx.body.data[0]).toMatchObject({
      id: expect.stringMatching(/^vtx_/),
      type: 'PENDING_POINTS_ACTIVATION',
      voucher_id: entry.voucher_id,
      details: { balance: { points: 40, balance: 40, total: 40, type: 'loyalty_card', object: 'balance' }, order: { id: order.id }, earning_rule: { id: ruleId } },
    });
    // The ledger row carries the whole entry as it was when activated: the list's entry, ACTIVATED at the row's moment.
    expect(tx.body.data[0].details.pending_points).toEqual({ ...entry, status: 'ACTIVATED', updated_at: tx.body.data[0].created_at });
    expect(await activationRow(campaign.id, code)).toEqual(tx.body.data[0]);
    expect(activated).toMatchObject({ object: 'event', type: ACTIVATED, entity_id: customerId, event_source: { channel: 'INTERNAL' }, group_id: expect.stringMatching(REQUEST_ID) });
    const data = (activated as unknown as { data: Record<string, Record<string, unknown>> }).data;
    expect(Object.keys(data).sort()).toEqual(['balance', 'campaign', 'customer', 'order', 'pending_points', 'transaction', 'voucher']);
    expect(data.balance).toEqual({ points: 40, total: 40, balance: 40, type: 'loyalty_card', object: 'balance', related_object: { type: 'voucher', id: entry.voucher_id }, operation_type: 'AUTOMATIC' });
    expect(data.voucher).toMatchObject({ id: entry.voucher_id, code, loyalty_card: { points: 40, balance: 40, pending_points: 0 }, object: 'voucher' });
    expect(data.transaction).toEqual(tx.body.data[0]);
    expect(data.pending_points).toEqual(tx.body.data[0].details.pending_points);
    expect(data.customer).toMatchObject({ id: customerId, object: 'customer' });
    expect(data.campaign).toMatchObject({ id: campaign.id, name: campaign.name, campaign_type: 'LOYALTY_PROGRAM', object: 'campaign' });
    expect(data.order).toMatchObject({ id: order.id, status: 'PAID', amount: 1000, object: 'order' });
    expect((await stack.http().get(`/v1/loyalties/members/${code}/pending-points`).set(stack.a.headers)).body.data).toEqual([]);
  });

  it('the added event leaves out the customer\'s, campaign\'s and order\'s fields without a value, and keeps the nulls of their metadata and items', async () => {
    const { campaign } = await pointsCampaign(stack.app, stack.a, [{ points: 9, days: 30 }]);
    const customer = unique('nulls-holder');
    expect((await stack.http().post('/v1/customers').set(stack.a.headers).send({ source_id: customer, name: 'Ann', metadata: { tier: null, nested: { a: null } } })).status).toBe(200);
    await enrol(stack.app, stack.a, campaign, customer);
    const order = await stack
      .http()
      .post('/v1/orders')
      .set(stack.a.headers)
      .send({ status: 'PAID', amount: 1000, customer: { source_id: customer }, items: [{ product_id: 'p1', quantity: 1 }], metadata: { coupon: null } });
    expect(order.status).toBe(200);
    const [entry] = await db.entries({ orderId: order.body.id });
    const [event] = (await eventsFor(entry.id, ADDED)) as unknown as { data: Record<string, Record<string, unknown>> }[];
    expect(event.data.customer).toEqual({ id: order.body.customer_id, source_id: customer, name: 'Ann', metadata: { tier: null, nested: { a: null } }, object: 'customer' });
    expect(event.data.order).toEqual({
      id: order.body.id,
      status: 'PAID',
      customer_id: order.body.customer_id,
      amount: 1000,
      total_amount: 1000,
      created_at: order.body.created_at,
      items: [{ product_id: 'p1', quantity: 1, object: 'order_item' }],
      metadata: { coupon: null },
      object: 'order',
    });
    for (const field of ['start_date', 'expiration_date', 'description', 'updated_at', 'category_id']) expect(event.data.campaign).not.toHaveProperty(field);
    expect(event.data.campaign).toMatchObject({ id: campaign.id, metadata: {}, object: 'campaign' });
    expect(event.data.voucher_pending_points_balance).toMatchObject({ points: 9, total: 9, balance: 9 });
  });

  it('activates by hand: the balance object, then 400 invalid_pending_points_state, and the job finds nothing to do', async () => {
    const { code, entryId, order, campaign } = await pendingFixture(3);
    const [before] = (await stack.http().get(`/v1/loyalties/members/${code}/pending-points`).set(stack.a.headers)).body.data as Entry[];
    const res = await stack.http().post(`${entryPath(code, entryId)}/activate`).set(stack.a.headers);
    expect(res.status).toBe(200);
    const card = await db.card(code);
    expect(res.body).toEqual({ points: 40, total: 40, balance: 40, type: 'loyalty_card', object: 'balance', related_object: { type: 'voucher', id: card.id }, operation_type: 'MANUAL' });
    const again = await stack.http().post(`${entryPath(code, entryId)}/activate`).set(stack.a.headers);
    expect(again.status).toBe(400);
    expect(again.body).toEqual({
      code: 400,
      key: 'invalid_pending_points_state',
      message: 'Invalid pending points state',
      details: "Only pending points in 'PENDING' status can be activated. Current status: 'ACTIVATED'.",
      request_id: again.headers['x-request-id'],
      resource_id: entryId,
      resource_type: 'pending_points',
    });
    const [event] = await eventsFor(entryId, ACTIVATED);
    expect(event).toMatchObject({ event_source: { channel: 'API', api_key: { name: 'Primary', app_id: stack.a.app_id } }, group_id: res.headers['x-request-id'], data: { balance: { operation_type: 'MANUAL' } } });
    // The ledger row (both routes) and the event's transaction carry the whole entry, ACTIVATED by this call.
    const row = await activationRow(campaign.id, code);
    expect(row.details.pending_points).toEqual({ ...before, status: 'ACTIVATED', updated_at: row.created_at });
    expectEntryDates(row.details.pending_points);
    const data = (event as unknown as { data: { transaction: unknown; pending_points: unknown } }).data;
    expect(data.transaction).toEqual(row);
    expect(data.pending_points).toEqual(row.details.pending_points);
    // Past activates_at its cohort's delayed job has run (it is gone from the queue) without crediting again.
    const [entry] = await db.entries({ orderId: order.id });
    const queue = stack.worker.get<Queue>(getQueueToken('pending-points'), { strict: false });
    const cohort = cohortOf(stack.a.project.id, entry.activates_at);
    await waitFor(async () => (Date.now() > cohort.dueAt && (await queue.getJobState(cohort.jobId)) === 'unknown' ? true : undefined), { timeoutMs: 15_000, intervalMs: 200 });
    expect(await db.card(code)).toMatchObject({ balance: 40, pending_points: 0 });
    expect(await db.count('SELECT 1 FROM voucher_transactions WHERE pending_points_id = $1', [entryId])).toBe(1);
  });

  it('adjusts (event updated), refuses to leave 0 or less (invalid_amount), cancels (204, event canceled), then only 400s', async () => {
    const { code, entryId } = await pendingFixture(30, 40);
    const [fresh] = (await stack.http().get(`/v1/loyalties/members/${code}/pending-points`).set(stack.a.headers)).body.data as Entry[];
    expect(fresh).not.toHaveProperty('updated_at');
    const up = await stack.http().post(`${entryPath(code, entryId)}/balance`).set(stack.a.headers).send({ points: 5 });
    expect(up.status).toBe(200);
    const card = await db.card(code);
    expect(up.body).toEqual({ points: 5, total: 45, object: 'balance', related_object: { type: 'voucher', id: card.id }, operation_type: 'MANUAL' });
    // Updated: the list shows `updated_at`, the rest as before.
    const [changed] = (await stack.http().get(`/v1/loyalties/members/${code}/pending-points`).set(stack.a.headers)).body.data as Entry[];
    expect(changed).toEqual({ ...fresh, points: 45, updated_at: expect.stringMatching(ISO) });
    const down = await stack.http().post(`${entryPath(code, entryId)}/balance`).set(stack.a.headers).send({ points: -44 });
    expect(down.body).toMatchObject({ points: -44, total: 1 });
    const zero = await stack.http().post(`${entryPath(code, entryId)}/balance`).set(stack.a.headers).send({ points: -1 });
    expect(zero.status).toBe(400);
    expect(zero.body).toMatchObject({ key: 'invalid_amount', message: 'Invalid Amount', resource_id: entryId });
    expect(zero.body.details).toMatch(/^Amount has to be a valid positive number/);
    for (const body of [{}, { points: 0 }, { points: 1.5 }, { points: '5' }, { points: 1, extra: true }]) {
      const bad = await stack.http().post(`${entryPath(code, entryId)}/balance`).set(stack.a.headers).send(body);
      expect({ body, status: bad.status, key: bad.body.key }).toEqual({ body, status: 400, key: 'invalid_payload' });
    }
    const mine = (await eventsFor(entryId, UPDATED)) as unknown as { data: { voucher_pending_points_balance: { points: number; total: number }; pending_points: Entry } }[];
    expect(mine.map((e) => e.data.voucher_pending_points_balance)).toEqual([
      expect.objectContaining({ points: -44, total: 1, operation_type: 'MANUAL' }),
      expect.objectContaining({ points: 5, total: 45, operation_type: 'MANUAL' }),
    ]);
    // The entry of an `updated` event is the list's entry after the change, with its `updated_at`.
    expect(mine[1].data.pending_points).toEqual(changed);
    expect(mine.map((e) => e.data.pending_points)).toEqual([
      { ...fresh, points: 1, updated_at: expect.stringMatching(ISO) },
      { ...fresh, points: 45, updated_at: expect.stringMatching(ISO) },
    ]);

    const cancel = await stack.http().post(`${entryPath(code, entryId)}/cancel`).set(stack.a.headers);
    expect(cancel.status).toBe(204);
    expect(cancel.text).toBe('');
    expect(await db.card(code)).toMatchObject({ balance: 0, pending_points: 0 });
    const canceled = (await eventsFor(entryId, CANCELED)) as unknown as { data: { pending_points: Entry } }[];
    expect(canceled).toHaveLength(1);
    expect(canceled[0].data.pending_points).toEqual({ ...fresh, points: 1, status: 'CANCELED', updated_at: expect.stringMatching(ISO) });
    expectEntryDates(canceled[0].data.pending_points);
    for (const [verb, body, word] of [['activate', undefined, 'activated'], ['balance', { points: 1 }, 'updated'], ['cancel', undefined, 'canceled']] as const) {
      const res = await stack.http().post(`${entryPath(code, entryId)}/${verb}`).set(stack.a.headers).send(body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ key: 'invalid_pending_points_state', details: `Only pending points in 'PENDING' status can be ${word}. Current status: 'CANCELED'.` });
    }
  });

  it('404s name the card (voucher) or the entry (pending_points); another project cannot see or touch anything', async () => {
    const { code, entryId, campaign, order } = await pendingFixture(30);
    const unknownCard = await stack.http().post(`${entryPath('NO-SUCH-CARD', entryId)}/activate`).set(stack.a.headers);
    expect(unknownCard.status).toBe(404);
    expect(unknownCard.body).toMatchObject({ resource_type: 'voucher', resource_id: 'NO-SUCH-CARD', details: 'Cannot find voucher with id NO-SUCH-CARD' });
    const unknownEntry = await stack.http().post(`${entryPath(code, 'lopp_000000000000000000')}/activate`).set(stack.a.headers);
    expect(unknownEntry.body).toMatchObject({ resource_type: 'pending_points', resource_id: 'lopp_000000000000000000' });
    const elsewhere = await pendingFixture(30);
    expect((await stack.http().post(`${entryPath(elsewhere.code, entryId)}/activate`).set(stack.a.headers)).body.resource_type).toBe('pending_points');
    expect((await stack.http().get(`/v1/loyalties/${campaign.id}/members/${elsewhere.code}/pending-points`).set(stack.a.headers)).status).toBe(404);

    for (const verb of ['activate', 'cancel']) expect((await stack.http().post(`${entryPath(code, entryId)}/${verb}`).set(stack.b.headers)).status).toBe(404);
    expect((await stack.http().post(`${entryPath(code, entryId)}/balance`).set(stack.b.headers).send({ points: 1 })).status).toBe(404);
    for (const path of [`/v1/loyalties/members/${code}/pending-points`, `/v1/loyalties/${campaign.id}/pending-points`, `/v1/loyalties/members/${code}/transactions`, `/v1/orders/${order.id}`]) {
      expect((await stack.http().get(path).set(stack.b.headers)).status).toBe(404);
    }
    const theirEvents = await stack.http().get('/v1/events').query({ limit: 100 }).set(stack.b.headers);
    expect(theirEvents.body.data).toEqual([]);
    const mine = (await stack.http().get('/v1/events').set(stack.a.headers)).body.data[0];
    expect((await stack.http().get(`/v1/events/${mine.id}`).set(stack.b.headers)).status).toBe(404);
    expect(await db.entries({ orderId: order.id })).toEqual([expect.objectContaining({ status: 'PENDING' })]);
  });

  it('lists PENDING entries of a campaign and a card by id, both directions, page by page', async () => {
    const { campaign, ruleIds } = await pointsCampaign(stack.app, stack.a, [{ points: 1, days: 60 }, { points: 2, days: 60 }]);
    const customer = unique('lister');
    const code = await enrol(stack.app, stack.a, campaign, customer);
    for (let i = 0; i < 3; i += 1) await payOrder(stack.app, stack.a, { source_id: unique('lister-order'), customer });
    expect(ruleIds).toHaveLength(2);
    const all = (await db.entries({ cardCode: code })).map((e) => e.id);
    expect(all).toHaveLength(6);
    for (const [path, order] of [[`/v1/loyalties/${campaign.id}/pending-points`, 'id'], [`/v1/loyalties/${campaign.name}/members/${code}/pending-points`, '-id']] as const) {
      const seen: string[] = [];
      let after: string | undefined;
      for (let page = 0; page < 5; page += 1) {
        const res = await stack.http().get(path).query({ limit: 4, order, ...(after ? { starting_after_id: after } : {}) }).set(stack.a.headers);
        expect(res.status).toBe(200);
        seen.push(...res.body.data.map((e: { id: string }) => e.id));
        if (!res.body.has_more) break;
        after = res.body.more_starting_after;
      }
      expect(seen).toEqual(order === 'id' ? [...all].sort() : [...all].sort().reverse());
    }
    const bad = await stack.http().get(`/v1/loyalties/${campaign.id}/pending-points`).query({ order: 'created_at' }).set(stack.a.headers);
    expect(bad.body).toMatchObject({ key: 'invalid_query_params' });
  });

  it('50 concurrent activations of one entry (API calls and worker jobs) credit it exactly once, round after round', async () => {
    const { campaign } = await pointsCampaign(stack.app, stack.a, [{ points: 7, days: 60 }]);
    const customer = unique('racer');
    const code = await enrol(stack.app, stack.a, campaign, customer);
    const activation = stack.worker.get(ActivationService);
    for (let round = 1; round <= 8; round += 1) {
      const order = (await payOrder(stack.app, stack.a, { source_id: unique('race'), customer })).body;
      const [entry] = await db.entries({ orderId: order.id });
      // 40 manual calls and 10 job-like activations in the worker, all at once.
      const [answers, jobs] = await Promise.all([
        Promise.all(Array.from({ length: 40 }, () => stack.http().post(`${entryPath(code, entry.id)}/activate`).set(stack.a.headers))),
        Promise.all(Array.from({ length: 10 }, () => activation.activate({ ids: [entry.id], extraDue: 0, operation: 'AUTOMATIC', cause: internalCause() }))),
      ]);
      const wins = answers.filter((res) => res.status === 200).length + jobs.filter((done) => done.activated.length === 1).length;
      expect({ round, wins }).toEqual({ round, wins: 1 });
      expect(answers.filter((res) => res.status !== 200).every((res) => res.status === 400 && res.body.key === 'invalid_pending_points_state')).toBe(true);
      expect(await db.card(code)).toMatchObject({ balance: 7 * round, pending_points: 0 });
      expect(await db.count('SELECT 1 FROM voucher_transactions WHERE pending_points_id = $1', [entry.id])).toBe(1);
      expect(await eventsFor(entry.id, ACTIVATED)).toHaveLength(1);
    }
  });

  it('the sweep activates a due entry whose job was removed from Redis', async () => {
    const { campaign } = await pointsCampaign(stack.app, stack.a, [{ points: 9, days: 2 }]);
    const customer = unique('lost-job');
    const code = await enrol(stack.app, stack.a, campaign, customer);
    const order = (await payOrder(stack.app, stack.a, { source_id: unique('lost'), customer })).body;
    const [entry] = await db.entries({ orderId: order.id });
    const queue = stack.worker.get<Queue>(getQueueToken('pending-points'), { strict: false });
    // One delayed job for the entry's due-moment cohort, none per entry.
    const { jobId } = cohortOf(stack.a.project.id, entry.activates_at);
    expect(await queue.getJobState(jobId)).toBe('delayed');
    expect(await queue.getJobState(entry.id)).toBe('unknown');
    await queue.remove(jobId);
    expect(await queue.getJobState(jobId)).toBe('unknown');
    await waitFor(async () => ((await db.card(code)).balance === 9 ? true : undefined), { timeoutMs: 2 * DAY_MS + 3 * SWEEP_MS + 5_000 });
    const [settled] = await db.entries({ orderId: order.id });
    expect(settled.status).toBe('ACTIVATED');
    // Late by at most about one sweep interval, never early.
    expect(settled.settled_at!.getTime() - settled.activates_at.getTime()).toBeGreaterThanOrEqual(0);
    expect(settled.settled_at!.getTime() - settled.activates_at.getTime()).toBeLessThan(SWEEP_MS + 2_000);
    expect(await eventsFor(entry.id, ACTIVATED)).toHaveLength(1);
  });

  it('lists the event log newest first, filtered by type, page by page with a signed cursor', async () => {
    const all = await stack.http().get('/v1/events').query({ limit: 100 }).set(stack.a.headers);
    expect(all.body.data.length).toBeGreaterThan(10);
    const times = all.body.data.map((e: { created_at: string }) => e.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await stack.http().get('/v1/events').query({ limit: 3, type: ACTIVATED, ...(cursor ? { cursor } : {}) }).set(stack.a.headers);
      expect(res.status).toBe(200);
      expect(res.body.data.every((e: { type: string }) => e.type === ACTIVATED)).toBe(true);
      seen.push(...res.body.data.map((e: { id: string }) => e.id));
      cursor = res.body.cursor?.next;
      expect(res.body.has_more).toBe(cursor !== undefined);
    } while (cursor);
    expect(seen).toEqual(all.body.data.filter((e: { type: string }) => e.type === ACTIVATED).map((e: { id: string }) => e.id));
    const first = await stack.http().get('/v1/events').query({ limit: 1, type: ACTIVATED }).set(stack.a.headers);
    const other = await stack.http().get('/v1/events').query({ limit: 1, cursor: first.body.cursor.next }).set(stack.a.headers);
    expect(other.body).toMatchObject({ key: 'invalid_or_expired_cursor' });
    const tampered = await stack.http().get('/v1/events').query({ limit: 1, type: ACTIVATED, cursor: `${first.body.cursor.next.slice(0, -2)}00` }).set(stack.a.headers);
    expect(tampered.body).toMatchObject({ key: 'invalid_or_expired_cursor' });
    expect((await stack.http().get('/v1/events').query({ type: 'order.paid' }).set(stack.a.headers)).body.key).toBe('invalid_query_params');
    const one = await stack.http().get(`/v1/events/${all.body.data[0].id}`).set(stack.a.headers);
    expect(one.body).toEqual(all.body.data[0]);
    expect((await stack.http().get('/v1/events/evcus_000000000000000000').set(stack.a.headers)).body).toMatchObject({ resource_type: 'event' });
  });
});
