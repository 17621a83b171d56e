import { cliOk } from '../support/cli.js';
import { useStack } from '../support/fixture.js';
import { REQUEST_ID } from '../support/harness.js';
import { bucketViolations, enrol, payOrder, pointsCampaign, projectViolations, unique } from '../support/points.js';

const ADDED = 'customer.voucher.loyalty_card.points_added';
const REMOVED = 'customer.voucher.loyalty_card.points_removed';
const BUCKET_ID = /^lopb_[a-f0-9]{18}$/;

/**
 * Points added and removed by hand (POST …/members/{memberId}/balance), the buckets they make or drain, the
 * list of a card's buckets, and the Idempotency-Key of the route. Every test ends with the card, its
 * ledger and its buckets agreeing.
 */
describe('card balance by hand and point buckets', () => {
  const stack = useStack({
    config: { RATE_LIMIT_PER_SECOND: '0' },
    projects: ['Balance project', 'Other balance project'],
    pointsDb: true,
    beforeClose: async ({ db, a, b }) => {
      expect(await projectViolations(db, a.project.id)).toEqual([]);
      expect(await projectViolations(db, b.project.id)).toEqual([]);
    },
  });
  const { db } = stack;

  async function member(extra: object = {}, who = stack.a) {
    const { campaign } = await pointsCampaign(stack.app, who, [{ points: 25 }], extra);
    const customer = unique('balance-holder');
    const code = await enrol(stack.app, who, campaign, customer);
    return { campaign, code, customer };
  }
  const change = (code: string, body: object, who = stack.a, campaignId?: string) =>
    stack.http().post(`/v1/loyalties/${campaignId ? `${encodeURIComponent(campaignId)}/` : ''}members/${encodeURIComponent(code)}/balance`).set(who.headers).send(body);
  const buckets = (campaignId: string, code: string, query: object = {}) => stack.http().get(`/v1/loyalties/${campaignId}/members/${code}/points-expiration`).query(query).set(stack.a.headers);
  const today = async () => (await db.query<{ d: string }>(`SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS d`))[0].d;
  const plusDays = async (days: number) => (await db.query<{ d: string }>(`SELECT to_char((now() AT TIME ZONE 'UTC')::date + $1::int, 'YYYY-MM-DD') AS d`, [days]))[0].d;

  it('adds points: exactly the SDK\'s balance object, a POINTS_ADDITION row with reason and source_id, a bucket and a points_added event', async () => {
    const { campaign, code } = await member();
    const card = await db.card(code);
    const res = await change(code, { points: 120, reason: 'goodwill', source_id: 'crm-1' });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ points: 120, total: 120, balance: 120, type: 'loyalty_card', object: 'balance', related_object: { type: 'voucher', id: card.id }, operation_type: 'MANUAL' });
    const tx = await stack.http().get(`/v1/loyalties/members/${code}/transactions`).set(stack.a.headers);
    expect(tx.body.data[0]).toMatchObject({
      source_id: 'crm-1',
      voucher_id: card.id,
      campaign_id: campaign.id,
      reason: 'goodwill',
      type: 'POINTS_ADDITION',
      details: { balance: { type: 'loyalty_card', total: 120, object: 'balance', points: 120, balance: 120, related_object: { id: card.id, type: 'voucher' } }, reason: 'goodwill' },
    });
    const list = await buckets(campaign.id, code);
    expect(list.status).toBe(200);
    expect(list.body).toStrictEqual({
      object: 'list',
      data_ref: 'data',
      data: [{ id: expect.stringMatching(BUCKET_ID), voucher_id: card.id, campaign_id: campaign.id, bucket: { total_points: 120 }, status: 'ACTIVE', created_at: expect.any(String), object: 'loyalty_points_bucket' }],
      total: 1,
    });
    const events = (await stack.http().get('/v1/events').query({ type: ADDED }).set(stack.a.headers)).body.data as { data: Record<string, { id?: string; points?: number; type?: string }> }[];
    const mine = events.filter((e) => e.data.voucher.id === card.id);
    expect(mine).toHaveLength(1);
    expect(Object.keys(mine[0].data).sort()).toEqual(['balance', 'campaign', 'customer', 'transaction', 'voucher']);
    expect(mine[0].data.balance).toEqual(res.body);
    expect(mine[0].data.transaction).toMatchObject({ id: tx.body.data[0].id, type: 'POINTS_ADDITION', source_id: 'crm-1', reason: 'goodwill' });
  });

  it('removes points from the soonest-expiring buckets first, never-expiring last; a POINTS_REMOVAL row and a points_removed event', async () => {
    const { campaign, code } = await member();
    const [d0, d5] = [await today(), await plusDays(5)];
    expect((await change(code, { points: 10, expiration_type: 'NON_EXPIRING' })).status).toBe(200);
    expect((await change(code, { points: 10, expiration_type: 'CUSTOM_DATE', expiration_date: d5 })).status).toBe(200);
    expect((await change(code, { points: 10, expiration_type: 'CUSTOM_DATE', expiration_date: d0 })).status).toBe(200);
    const loyaltyCard = async () => (await stack.http().get(`/v1/loyalties/members/${code}`).set(stack.a.headers)).body.loyalty_card;
    expect(await loyaltyCard()).toMatchObject({ balance: 30, next_expiration_date: d0, next_expiration_points: 10 });
    const res = await change(code, { points: -15, reason: 'return' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ points: -15, total: 30, balance: 15 });
    const list = (await buckets(campaign.id, code)).body.data as { bucket: { total_points: number }; expires_at?: string }[];
    expect(list.map((b) => [b.expires_at, b.bucket.total_points])).toEqual([
      [d0, 0],
      [d5, 5],
      [undefined, 10],
    ]);
    expect('expires_at' in list[2]).toBe(false);
    expect(await loyaltyCard()).toMatchObject({ balance: 15, subtracted_points: 15, next_expiration_date: d5, next_expiration_points: 5 });
    const card = await db.card(code);
    const [row] = await db.query<{ type: string; points: string; reason: string }>(`SELECT type, points, details->>'reason' AS reason FROM voucher_transactions WHERE voucher_id = $1 ORDER BY seq DESC LIMIT 1`, [card.id]);
    expect(row).toEqual({ type: 'POINTS_REMOVAL', points: '-15', reason: 'return' });
    expect(await db.count(`SELECT 1 FROM events WHERE type = $1 AND data->'voucher'->>'id' = $2`, [REMOVED, card.id])).toBe(1);
    const [cols] = await db.query<{ subtracted: string }>('SELECT subtracted_points AS subtracted FROM vouchers WHERE id = $1', [card.id]);
    expect(cols.subtracted).toBe('15');
  });

  it('a removal larger than the balance is 400 loyalty_card_points_exceeded and changes nothing', async () => {
    const { code } = await member();
    await change(code, { points: 30 });
    const card = await db.card(code);
    const ledger = await db.count('SELECT 1 FROM voucher_transactions WHERE voucher_id = $1', [card.id]);
    const res = await change(code, { points: -31 });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 400, key: 'loyalty_card_points_exceeded', resource_type: 'voucher', resource_id: card.id, request_id: expect.stringMatching(REQUEST_ID) });
    expect(res.body.details).toContain('balance is 30');
    expect(await db.card(code)).toEqual(card);
    expect(await db.count('SELECT 1 FROM voucher_transactions WHERE voucher_id = $1', [card.id])).toBe(ledger);
  });

  it('refuses bad bodies with a clear 400 and dates before today with invalid_expiration_date', async () => {
    const { code } = await member();
    const cases: [object, string, string][] = [
      [{}, 'invalid_payload', 'points'],
      [{ points: 0 }, 'invalid_payload', 'points must not be 0'],
      [{ points: 1.5 }, 'invalid_payload', 'points'],
      [{ points: '10' }, 'invalid_payload', 'points'],
      [{ points: 10, expiration_type: 'SOMEDAY' }, 'invalid_payload', 'expiration_type'],
      [{ points: 10, expiration_type: 'CUSTOM_DATE' }, 'invalid_payload', 'expiration_date is required'],
      [{ points: 10, expiration_date: '2099-01-01' }, 'invalid_payload', 'only for expiration_type CUSTOM_DATE'],
      [{ points: -1, expiration_type: 'NON_EXPIRING' }, 'invalid_payload', 'added points only'],
      [{ points: 10, expiration_type: 'CUSTOM_DATE', expiration_date: 'tomorrow' }, 'invalid_payload', 'expiration_date'],
      [{ points: 10, expiration_type: 'CUSTOM_DATE', expiration_date: '2099-02-30' }, 'invalid_expiration_date', 'not a calendar date'],
      [{ points: 10, expiration_type: 'CUSTOM_DATE', expiration_date: '2020-01-01' }, 'invalid_expiration_date', 'before today'],
      [{ points: 10, bonus: true }, 'invalid_payload', 'bonus'],
    ];
    for (const [body, key, details] of cases) {
      const res = await change(code, body);
      expect({ body, status: res.status, key: res.body.key }).toEqual({ body, status: 400, key });
      expect(res.body.details).toContain(details);
    }
    expect((await db.card(code)).balance).toBe(0);
  });

  it('dates buckets by the request, else the campaign\'s rules (PROGRAM_RULES), and accepts a date-time for CUSTOM_DATE; one bucket per day', async () => {
    const { campaign, code } = await member({ voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0, expiration_rules: { period_type: 'MONTH', period_value: 2, rounding_type: 'END_OF_MONTH', rounding_value: 0 } } } });
    const [rules] = await db.query<{ d: string }>(`SELECT to_char(date_trunc('month', (now() AT TIME ZONE 'UTC')::date + interval '2 months') + interval '1 month - 1 day', 'YYYY-MM-DD') AS d`);
    await change(code, { points: 1 });
    await change(code, { points: 2, expiration_type: 'PROGRAM_RULES' });
    await change(code, { points: 3, expiration_type: 'NON_EXPIRING' });
    await change(code, { points: 4, expiration_type: 'CUSTOM_DATE', expiration_date: `${await plusDays(3)}T10:00:00Z` });
    const list = (await buckets(campaign.id, code)).body.data as { bucket: { total_points: number }; expires_at?: string }[];
    // One bucket per day: the two credits under the campaign's rules share theirs.
    expect(list.map((b) => [b.bucket.total_points, b.expires_at])).toEqual([
      [4, await plusDays(3)],
      [3, rules.d],
      [3, undefined],
    ]);
  });

  it('pages the bucket list, counts all of it, and answers 404 for another campaign\'s or project\'s card', async () => {
    const { campaign, code } = await member();
    for (let i = 0; i < 5; i += 1) await change(code, { points: i + 1, expiration_type: 'CUSTOM_DATE', expiration_date: await plusDays(i + 1) });
    const page2 = await buckets(campaign.id, code, { limit: 2, page: 2 });
    expect(page2.body.total).toBe(5);
    expect(page2.body.data.map((b: { bucket: { total_points: number } }) => b.bucket.total_points)).toEqual([3, 4]);
    const other = await member();
    expect((await buckets(other.campaign.id, code)).status).toBe(404);
    expect((await change(code, { points: 1 }, stack.a, other.campaign.id)).body).toMatchObject({ code: 404, resource_type: 'voucher' });
    expect((await change(code, { points: 1 }, stack.a, campaign.name)).status).toBe(200);
    expect((await change(code, { points: 1 }, stack.b)).status).toBe(404);
  });

  it('credits from orders go to buckets too: the earning rule\'s own expiration_rules win over the campaign\'s; the initial points\' bucket takes an accrual of its day', async () => {
    const { campaign, ruleIds } = await pointsCampaign(stack.app, stack.a, [{ points: 7 }, { points: 9 }], {
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 5, expiration_rules: { period_type: 'MONTH', period_value: 1 } } },
    });
    const rule = await stack.http().put(`/v1/loyalties/${campaign.id}/earning-rules/${ruleIds[1]}`).set(stack.a.headers).send({ expiration_rules: { period_type: 'MONTH', period_value: 3 } });
    expect(rule.status).toBe(200);
    expect(rule.body.expiration_rules).toEqual({ period_type: 'MONTH', period_value: 3 });
    const customer = unique('order-buckets');
    const code = await enrol(stack.app, stack.a, campaign, customer);
    expect((await payOrder(stack.app, stack.a, { source_id: unique('order'), customer })).status).toBe(200);
    const [dates] = await db.query<{ m1: string; m3: string }>(
      `SELECT to_char((now() AT TIME ZONE 'UTC')::date + interval '1 month', 'YYYY-MM-DD') AS m1, to_char((now() AT TIME ZONE 'UTC')::date + interval '3 months', 'YYYY-MM-DD') AS m3`,
    );
    const list = (await buckets(campaign.id, code)).body.data as { bucket: { total_points: number }; expires_at?: string }[];
    // The card's initial 5 (the trigger) and the first rule's 7 (the accrual) expire on the same day: one bucket.
    expect(list.map((b) => [b.bucket.total_points, b.expires_at])).toEqual([
      [12, dates.m1],
      [9, dates.m3],
    ]);
    expect(await bucketViolations(db, stack.a.project.id)).toEqual([]);
  });

  it('the v2 card counts its lifetime (earned, added, subtracted; pending activated, canceled) and shows its next activation and expiration', async () => {
    const { campaign } = await pointsCampaign(stack.app, stack.a, [{ points: 5 }, { points: 7, days: 3 }], {
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 10, expiration_rules: { period_type: 'MONTH', period_value: 2, rounding_type: 'END_OF_MONTH', rounding_value: 0 } } },
    });
    const customer = unique('lifetime-holder');
    const code = await enrol(stack.app, stack.a, campaign, customer);
    for (let i = 0; i < 3; i += 1) expect((await payOrder(stack.app, stack.a, { source_id: unique('lifetime-order'), customer })).status).toBe(200);
    const [first, second] = await db.entries({ cardCode: code });
    const member = `/v1/loyalties/members/${code}/pending-points`;
    expect((await stack.http().post(`${member}/${first.id}/activate`).set(stack.a.headers)).status).toBe(200);
    expect((await stack.http().post(`${member}/${second.id}/cancel`).set(stack.a.headers)).status).toBe(204);
    expect((await change(code, { points: 20, reason: 'goodwill' })).status).toBe(200);
    expect((await change(code, { points: -4, reason: 'correction' })).status).toBe(200);

    const card = await db.card(code);
    const [program] = await db.query<{ member_id: string }>('SELECT member_id FROM vouchers WHERE id = $1', [card.id]);
    const res = await stack.http().get(`/v2/loyalties/programs/${campaign.program_id}/members/${program.member_id}`).set(stack.a.headers);
    expect(res.status).toBe(200);
    const [{ day }] = await db.query<{ day: string }>(`SELECT to_char(activates_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM loyalty_pending_points WHERE voucher_id = $1 AND status = 'PENDING'`, [card.id]);
    const [expiry] = await db.query<{ date: string; points: number }>(`SELECT to_char(next_expiration_date, 'YYYY-MM-DD') AS date, next_expiration_points::int AS points FROM vouchers WHERE id = $1`, [card.id]);
    expect(expiry.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    // 10 initial + 20 by hand = 30 added; 3 × 5 at once + 7 activated = 22 earned; 7 canceled, 7 still pending.
    expect(res.body.cards[0].card).toEqual({
      id: `lcrd_${Buffer.from(card.id.slice(2)).toString('hex')}`,
      card_definition_id: `lcdef_${Buffer.from(campaign.id.slice('camp_'.length)).toString('hex')}`,
      code,
      campaign_id: campaign.id,
      card_type: 'INDIVIDUAL',
      lifetime_bucket: {
        points: { total: 52, earned: 22, added: 30, purchased: 0, purchased_reversed: 0, subtracted: 4, expired: 0, spent: 0, refunded: 0, returned: 0, locked: 0, unlocked: 0 },
        pending_points: { total: 21, activated: 7, canceled: 7 },
      },
      balance: { points: 48, pending_points: 7 },
      next_expiration: { points: expiry.points, date: expiry.date },
      next_activation: { points: 7, type: 'PERIOD_BASED', date: day },
      points_total: 52,
      object: 'card',
    });
    expect(expiry.points).toBeGreaterThan(0);
  });

  it('the project\'s time zone (cli.js set-time-zone): today is its today, and buckets expire at its midnight', async () => {
    const { code } = await member({}, stack.b);
    const card = await db.card(code);
    expect((await change(code, { points: 8, expiration_type: 'CUSTOM_DATE', expiration_date: '2099-06-30' }, stack.b)).status).toBe(200);
    const moment = async () =>
      (await db.query<{ at: string }>(`SELECT to_char(expire_after AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') AS at FROM loyalty_points_buckets WHERE voucher_id = $1 AND expires_at = '2099-06-30'`, [card.id]))[0].at;
    expect(await moment()).toBe('2099-07-01 00:00');
    expect(await cliOk(['set-time-zone', stack.b.project.id, 'Pacific/Kiritimati'])).toContain('1 point buckets rescheduled');
    expect(await moment()).toBe('2099-06-30 10:00');
    // Today in UTC+14 is a day ahead of UTC for ten hours of each day: yesterday there is refused, today accepted.
    const [{ today, yesterday }] = await db.query<{ today: string; yesterday: string }>(
      `SELECT to_char(now() AT TIME ZONE 'Pacific/Kiritimati', 'YYYY-MM-DD') AS today, to_char((now() AT TIME ZONE 'Pacific/Kiritimati')::date - 1, 'YYYY-MM-DD') AS yesterday`,
    );
    expect((await change(code, { points: 1, expiration_type: 'CUSTOM_DATE', expiration_date: yesterday }, stack.b)).body.key).toBe('invalid_expiration_date');
    expect((await change(code, { points: 1, expiration_type: 'CUSTOM_DATE', expiration_date: today }, stack.b)).status).toBe(200);
    await expect(cliOk(['set-time-zone', stack.b.project.id, 'Mars/Olympus'])).rejects.toThrow(/Unknown time zone Mars\/Olympus/);
    await cliOk(['set-time-zone', stack.b.project.id, 'UTC']);
    expect(await moment()).toBe('2099-07-01 00:00');
  });

  describe('Idempotency-Key', () => {
    it('replays the first answer for the same key and body, 422 for another body, and is per project', async () => {
      const { code } = await member();
      const key = unique('key');
      const first = await change(code, { points: 40, reason: 'once' }).set('Idempotency-Key', key);
      const again = await change(code, { points: 40, reason: 'once' }).set('Idempotency-Key', key);
      expect(first.status).toBe(200);
      expect(again.status).toBe(200);
      expect(again.body).toStrictEqual(first.body);
      const card = await db.card(code);
      expect(card.balance).toBe(40);
      expect(await db.count(`SELECT 1 FROM voucher_transactions WHERE voucher_id = $1 AND type = 'POINTS_ADDITION'`, [card.id])).toBe(1);
      const other = await change(code, { points: 41, reason: 'once' }).set('Idempotency-Key', key);
      expect(other.status).toBe(422);
      expect(other.body).toMatchObject({ code: 422, key: 'idempotency_key_reused' });
      // A removal refused for the balance is answered again the same way, even after the balance grew.
      const removal = unique('key');
      expect((await change(code, { points: -100 }).set('Idempotency-Key', removal)).body.key).toBe('loyalty_card_points_exceeded');
      await change(code, { points: 100 });
      expect((await change(code, { points: -100 }).set('Idempotency-Key', removal)).body.key).toBe('loyalty_card_points_exceeded');
      const otherProject = await member({}, stack.b);
      expect((await change(otherProject.code, { points: 40, reason: 'once' }, stack.b).set('Idempotency-Key', key)).status).toBe(200);
    });
  });
});
