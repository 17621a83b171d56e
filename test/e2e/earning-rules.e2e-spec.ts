import { useStack } from '../support/fixture.js';
import { createFinishedCampaign } from '../support/harness.js';
import { Answers } from '../support/points.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const RULE_ID = /^ern_[A-Za-z0-9]{24}$/;

describe('earning rules (/v1/loyalties/{campaignId}/earning-rules)', () => {
  const stack = useStack({ projects: ['Earning rules project', 'Other earning rules project'] });
  let campaignId: string;
  let campaignName: string;

  beforeAll(async () => {
    campaignName = 'Earning rules campaign';
    campaignId = (await createFinishedCampaign<{ id: string }>(stack.app, stack.a, { name: campaignName })).id;
  });

  const rules = (id = campaignId) => `/v1/loyalties/${encodeURIComponent(id)}/earning-rules`;
  const create = (body: unknown, who = stack.a, id = campaignId) => stack.http().post(rules(id)).set(who.headers).send(body as object);

  it('creates rules from an array (Voucherify\'s body) and answers them in order, with every default', async () => {
    const res = await create([
      { loyalty: { type: 'FIXED', points: 10 }, pending_points: { period_type: 'DAY', period_value: 14 }, source: { banner: 'Ten points, after returns' }, metadata: { tier: 'all' } },
      { event: 'order.paid', loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT', order: { amount: { every: 1000, points: 3 } } }, active: false, start_date: '2026-01-01T00:00:00Z', expiration_date: '2027-01-01T00:00:00+01:00' },
    ]);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(2);
    expect(res.body[0]).toEqual({
      id: expect.stringMatching(RULE_ID),
      created_at: expect.stringMatching(ISO),
      updated_at: null,
      validation_rule_id: null,
      loyalty: { type: 'FIXED', points: 10 },
      event: 'order.paid',
      source: { banner: 'Ten points, after returns', object_id: campaignId, object_type: 'campaign' },
      active: true,
      pending_points: { period_type: 'DAY', period_value: 14 },
      automation_id: `auto_${res.body[0].id.slice('ern_'.length)}`,
      metadata: { tier: 'all' },
      object: 'earning_rule',
    });
    expect(res.body[1]).toMatchObject({
      loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT', order: { amount: { every: 1000, points: 3 } } },
      active: false,
      start_date: '2026-01-01T00:00:00.000Z',
      expiration_date: '2026-12-31T23:00:00.000Z',
    });
    // Without a value, Voucherify leaves these out (its schema types them as plain strings and objects).
    for (const field of ['pending_points', 'expiration_rules']) expect(res.body[1]).not.toHaveProperty(field);
    expect(res.body[1].source).toEqual({ object_id: campaignId, object_type: 'campaign' });
  });

  it('lists (oldest first, page/limit, total), gets by id, also through the campaign\'s name', async () => {
    const list = await stack.http().get(rules()).query({ limit: 1 }).set(stack.a.headers);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ object: 'list', data_ref: 'data', total: 2 });
    expect(list.body.data).toHaveLength(1);
    const second = await stack.http().get(rules(campaignName)).query({ limit: 1, page: 2 }).set(stack.a.headers);
    expect(second.body.data[0].id).not.toBe(list.body.data[0].id);
    const got = await stack.http().get(`${rules()}/${list.body.data[0].id}`).set(stack.a.headers);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(list.body.data[0]);
  });

  it('updates only what is sent; pending_points null removes the pending period', async () => {
    const [rule] = (await create([{ loyalty: { type: 'FIXED', points: 5 }, pending_points: { period_type: 'DAY', period_value: 3 } }])).body;
    const put = (body: object) => stack.http().put(`${rules()}/${rule.id}`).set(stack.a.headers).send(body);
    const changed = await put({ loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT', order: { amount: { every: 100, points: 1 } } }, source: { banner: 'Renamed' } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ loyalty: { type: 'PROPORTIONAL' }, source: { banner: 'Renamed' }, pending_points: { period_value: 3 }, updated_at: expect.stringMatching(ISO) });
    const removed = await put({ pending_points: null, active: false });
    expect(removed.body).toMatchObject({ active: false, loyalty: { type: 'PROPORTIONAL' } });
    expect(removed.body).not.toHaveProperty('pending_points');
    expect((await put({ start_date: '2026-05-01T00:00:00Z', expiration_date: '2026-04-01T00:00:00Z' })).body).toMatchObject({ key: 'invalid_payload', details: 'expiration_date must not be before start_date' });
  });

  it('deletes (204), then 404 earning_rule', async () => {
    const [rule] = (await create([{ loyalty: { type: 'FIXED', points: 1 } }])).body;
    expect((await stack.http().delete(`${rules()}/${rule.id}`).set(stack.a.headers)).status).toBe(204);
    const gone = await stack.http().get(`${rules()}/${rule.id}`).set(stack.a.headers);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ key: 'not_found', resource_type: 'earning_rule', resource_id: rule.id, details: `Cannot find earning_rule with id ${rule.id}` });
    expect((await stack.http().delete(`${rules()}/${rule.id}`).set(stack.a.headers)).status).toBe(404);
  });

  it.each([
    ['no loyalty', [{}], '[0] loyalty is required'],
    ['an unknown loyalty type', [{ loyalty: { type: 'TIERED', points: 1 } }], /^\[0\] loyalty.type must be one of the following values: FIXED, PROPORTIONAL/],
    ['FIXED without points', [{ loyalty: { type: 'FIXED' } }], '[0] loyalty.points is required for type FIXED'],
    ['FIXED with 0 points', [{ loyalty: { type: 'FIXED', points: 0 } }], '[0] loyalty.points must not be less than 1'],
    ['FIXED with fractional points', [{ loyalty: { type: 'FIXED', points: 1.5 } }], '[0] loyalty.points must be an integer number'],
    ['FIXED with an order ratio', [{ loyalty: { type: 'FIXED', points: 1, order: { amount: { every: 1, points: 1 } } } }], 'loyalty of type FIXED takes points only, not order or calculation_type'],
    ['PROPORTIONAL without order', [{ loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT' } }], '[0] loyalty.order is required for type PROPORTIONAL'],
    ['PROPORTIONAL with every 0', [{ loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT', order: { amount: { every: 0, points: 1 } } } }], '[0] loyalty.order.amount.every must not be less than 1'],
    ['PROPORTIONAL on items', [{ loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_ITEMS_AMOUNT', order: { amount: { every: 1, points: 1 } } } }], /calculation_type must be ORDER_AMOUNT/],
    ['period_value 0', [{ loyalty: { type: 'FIXED', points: 1 }, pending_points: { period_type: 'DAY', period_value: 0 } }], '[0] pending_points.period_value must not be less than 1'],
    ['period_value 91', [{ loyalty: { type: 'FIXED', points: 1 }, pending_points: { period_type: 'DAY', period_value: 91 } }], '[0] pending_points.period_value must not be greater than 90'],
    ['period_type WEEK', [{ loyalty: { type: 'FIXED', points: 1 }, pending_points: { period_type: 'WEEK', period_value: 1 } }], /^\[0\] pending_points.period_type must be one of the following values: DAY/],
    ['another event', [{ event: 'customer.segment.entered', loyalty: { type: 'FIXED', points: 1 } }], '[0] event must be order.paid: the only earning event of this service'],
    ['an unknown field', [{ loyalty: { type: 'FIXED', points: 1 }, segment: { id: 'seg_1' } }], '[0] property segment is not allowed'],
    ['a date without a zone', [{ loyalty: { type: 'FIXED', points: 1 }, start_date: '2026-01-01T00:00:00' }], /^\[0\] start_date must be an ISO 8601 date-time with a time zone/],
    ['an object instead of an array', { loyalty: { type: 'FIXED', points: 1 } }, 'Request body must be a JSON array'],
    ['an empty array', [], 'Request body must hold 1 to 100 items'],
    ['101 rules', Array.from({ length: 101 }, () => ({ loyalty: { type: 'FIXED', points: 1 } })), 'Request body must hold 1 to 100 items'],
    ['the second rule invalid (none is created)', [{ loyalty: { type: 'FIXED', points: 1 } }, { loyalty: { type: 'FIXED', points: -1 } }], '[1] loyalty.points must not be less than 1'],
  ])('400 invalid_payload naming the field: %s', async (_name, body, details) => {
    const before = (await stack.http().get(rules()).set(stack.a.headers)).body.total as number;
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body.key).toBe('invalid_payload');
    if (typeof details === 'string') expect(res.body.details).toContain(details);
    else expect(res.body.details).toMatch(details);
    expect((await stack.http().get(rules()).set(stack.a.headers)).body.total).toBe(before);
  });

  it('404 for an unknown campaign, and another project\'s campaign and rules are not found', async () => {
    const unknown = await create([{ loyalty: { type: 'FIXED', points: 1 } }], stack.a, 'camp_nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ resource_type: 'campaign', resource_id: 'camp_nope' });
    expect((await create([{ loyalty: { type: 'FIXED', points: 1 } }], stack.b)).status).toBe(404);
    const mine = (await stack.http().get(rules()).set(stack.a.headers)).body.data[0].id as string;
    const otherCampaign = (await createFinishedCampaign<{ id: string }>(stack.app, stack.b, { name: campaignName })).id;
    expect((await stack.http().get(`${rules(otherCampaign)}/${mine}`).set(stack.b.headers)).status).toBe(404);
    expect((await stack.http().put(`${rules(otherCampaign)}/${mine}`).set(stack.b.headers).send({ active: false })).status).toBe(404);
    expect((await stack.http().delete(`${rules(otherCampaign)}/${mine}`).set(stack.b.headers)).status).toBe(404);
    expect((await stack.http().get(rules(otherCampaign)).set(stack.b.headers)).body.total).toBe(0);
  });
});

/**
 * Issue 36: the caps on rules per campaign and per project hold under concurrent creates: many parallel
 * requests at the cap make exactly as many rules as it leaves room for, the others are 409 `limit_exceeded`,
 * none is a 5xx. Rounds: one campaign at its cap, then three campaigns at the project's.
 */
describe('earning rule caps under concurrent creates', () => {
  const PER_CAMPAIGN = 6;
  const PER_PROJECT = 15;
  const stack = useStack({
    config: { EARNING_RULES_MAX_PER_CAMPAIGN: String(PER_CAMPAIGN), EARNING_RULES_MAX_PER_PROJECT: String(PER_PROJECT), RATE_LIMIT_PER_SECOND: '0' },
    projects: ['Earning rule caps project'],
    pointsDb: true,
  });

  const create = (campaignId: string, count = 1) =>
    stack.http().post(`/v1/loyalties/${campaignId}/earning-rules`).set(stack.a.headers).send(Array.from({ length: count }, () => ({ loyalty: { type: 'FIXED', points: 1 } })));
  const rulesOf = (where: string, param: string) => stack.db.count(`SELECT 1 FROM earning_rules WHERE ${where} = $1`, [param]);

  it('parallel creates on one campaign, then on three, never pass either cap; the rest are 409, none a 5xx', async () => {
    const campaigns: string[] = [];
    for (let i = 0; i < 3; i += 1) campaigns.push((await createFinishedCampaign<{ id: string }>(stack.app, stack.a, { name: `Capped campaign ${i}` })).id);
    const answers = new Answers();
    const round = async (tasks: (() => Promise<{ status: number; body: unknown }>)[]) => {
      for (const res of await Promise.all(tasks.map((task) => task()))) answers.add(res);
    };

    await round(Array.from({ length: 20 }, () => () => create(campaigns[0])));
    expect(await rulesOf('campaign_id', campaigns[0])).toBe(PER_CAMPAIGN);
    await round(Array.from({ length: 30 }, (_, i) => () => create(campaigns[1 + (i % 2)])));
    expect(await rulesOf('project_id', stack.a.project.id)).toBe(PER_PROJECT);
    for (const id of campaigns) expect(await rulesOf('campaign_id', id)).toBeLessThanOrEqual(PER_CAMPAIGN);
    // A full project refuses whatever the campaign.
    await round(Array.from({ length: 5 }, (_, i) => () => create(campaigns[i % 3])));
    expect(await rulesOf('project_id', stack.a.project.id)).toBe(PER_PROJECT);

    const { histogram, unexpected } = answers.report(['409 limit_exceeded']);
    expect(unexpected).toEqual({});
    expect(Object.keys(histogram).sort()).toEqual(['200', '409 limit_exceeded']);
  });
});
