import { useStack } from '../support/fixture.js';
import { REQUEST_ID, type TestProject, createFinishedCampaign } from '../support/harness.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MEMBER_ID = /^lmbr_[a-f0-9]+$/;
const CUSTOMER_ID = /^cust_[0-9A-Za-z]+$/;
let seq = 0;
const unique = (base: string) => `${base}-${Date.now().toString(36)}-${(seq += 1)}`;

interface Campaign {
  id: string;
  name: string;
  program_id: string;
  vouchers_count: number;
  vouchers_generation_status: string;
}

interface MemberCard {
  member_role: string;
  created_at: string;
  card: { id: string; code: string; campaign_id: string; balance: { points: number; pending_points: number }; points_total: number };
}

describe('v2 program members: enrolment and member resources (/v2/loyalties/programs/{programId}/members)', () => {
  const stack = useStack({ worker: true, projects: ['Members project', 'Other members project'], pg: true });
  const { pg: db } = stack;

  /** A campaign whose card generation (if any) has finished. */
  const campaign = (body: object = {}, who: TestProject = stack.a) => createFinishedCampaign<Campaign>(stack.app, who, { name: unique('Members campaign'), ...body });
  const members = (programId: string) => `/v2/loyalties/programs/${programId}/members`;
  const enrol = (programId: string, body: unknown, who: TestProject = stack.a) => stack.http().post(members(programId)).set(who.headers).send(body as object);
  const bySource = (sourceId: string, extra: object = {}) => ({ customer_identification: { type: 'customer_source_id', customer_source_id: sourceId }, ...extra });
  const byId = (customerId: string, extra: object = {}) => ({ customer_identification: { type: 'customer_id', customer_id: customerId }, ...extra });
  const getMember = (programId: string, memberId: string, who: TestProject = stack.a) => stack.http().get(`${members(programId)}/${memberId}`).set(who.headers);
  const putMember = (programId: string, memberId: string, body: unknown, who: TestProject = stack.a) =>
    stack.http().put(`${members(programId)}/${memberId}`).set(who.headers).send(body as object);
  const action = (programId: string, memberId: string, verb: 'activate' | 'deactivate', who: TestProject = stack.a) =>
    stack.http().post(`${members(programId)}/${memberId}/${verb}`).set(who.headers);
  const remove = (programId: string, memberId: string, who: TestProject = stack.a) => stack.http().delete(`${members(programId)}/${memberId}`).set(who.headers);
  const listIds = async (programId: string): Promise<string[]> => {
    const res = await stack.http().get(members(programId)).query({ limit: 100 }).set(stack.a.headers);
    expect(res.status).toBe(200);
    return res.body.data.map((m: { id: string }) => m.id);
  };
  const cardCodes = async (campaignId: string) => (await db.query<{ code: string }>('SELECT code FROM vouchers WHERE campaign_id = $1', [campaignId])).rows.map((r) => r.code);
  const memberCount = async (programId: string) =>
    (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM members WHERE program_id = $1 AND status <> 'DELETED'`, [programId])).rows[0].n;

  describe('POST (enrol)', () => {
    it('by customer_source_id: the customer is created and the answer is the member with its card', async () => {
      const camp = await campaign({ voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 25 } } });
      const sourceId = unique('new-customer');
      const res = await enrol(camp.program_id, bySource(sourceId));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: expect.stringMatching(MEMBER_ID),
        customer_id: expect.stringMatching(CUSTOMER_ID),
        program_id: camp.program_id,
        status: 'ACTIVE',
        metadata: {},
        created_at: expect.stringMatching(ISO),
        updated_at: null,
        object: 'member',
        cards: [
          {
            member_role: 'OWNER',
            created_at: expect.stringMatching(ISO),
            card: {
              id: expect.stringMatching(/^lcrd_[0-9a-f]{64}$/),
              card_definition_id: `lcdef_${Buffer.from(camp.id.slice('camp_'.length)).toString('hex')}`,
              code: expect.stringMatching(/^[0-9A-Za-z]{8}$/),
              campaign_id: camp.id,
              card_type: 'INDIVIDUAL',
              lifetime_bucket: {
                points: { total: 25, earned: 0, added: 25, purchased: 0, purchased_reversed: 0, subtracted: 0, expired: 0, spent: 0, refunded: 0, returned: 0, locked: 0, unlocked: 0 },
                pending_points: { total: 0, activated: 0, canceled: 0 },
              },
              balance: { points: 25, pending_points: 0 },
              next_expiration: null,
              next_activation: null,
              points_total: 25,
              object: 'card',
            },
            object: 'member_card',
          },
        ],
      });
      expect(Math.abs(Date.parse(res.body.created_at) - Date.now())).toBeLessThan(60_000);

      const customer = await stack.http().get(`/v1/customers/${encodeURIComponent(sourceId)}`).set(stack.a.headers);
      expect(customer.status).toBe(200);
      expect(customer.body).toMatchObject({ id: res.body.customer_id, source_id: sourceId });
      // The campaign counts the card it made for the member.
      expect((await stack.http().get(`/v1/loyalties/${camp.id}`).set(stack.a.headers)).body.vouchers_count).toBe(1);
    });

    it('by customer_id of an existing customer, with status INACTIVE and metadata', async () => {
      const camp = await campaign();
      const customer = (await stack.http().post('/v1/customers').set(stack.a.headers).send({ source_id: unique('existing'), name: 'Existing' })).body;
      expect(customer.id).toMatch(CUSTOMER_ID);
      const res = await enrol(camp.program_id, byId(customer.id, { status: 'INACTIVE', metadata: { tier: 'gold', n: 1 } }));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ customer_id: customer.id, status: 'INACTIVE', metadata: { tier: 'gold', n: 1 }, program_id: camp.program_id });
      expect(res.body.cards).toHaveLength(1);
      const got = await getMember(camp.program_id, res.body.id);
      expect(got.body).toMatchObject({ status: 'INACTIVE', metadata: { tier: 'gold', n: 1 } });
      // The customer was not changed or duplicated.
      const again = await stack.http().get(`/v1/customers/${customer.id}`).set(stack.a.headers);
      expect(again.body).toMatchObject({ id: customer.id, name: 'Existing', source_id: customer.source_id });
    });

    it('status null and metadata null give the defaults ACTIVE and {}', async () => {
      const camp = await campaign();
      const res = await enrol(camp.program_id, bySource(unique('nulls'), { status: null, metadata: null }));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'ACTIVE', metadata: {} });
    });

    it('404 customer for an unknown customer id, and no member is made', async () => {
      const camp = await campaign();
      const res = await enrol(camp.program_id, byId('cust_doesNotExist123'));
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        code: 404,
        key: 'not_found',
        message: 'Resource not found',
        details: 'Cannot find customer with id cust_doesNotExist123',
        request_id: expect.stringMatching(REQUEST_ID),
        resource_id: 'cust_doesNotExist123',
        resource_type: 'customer',
      });
      expect(await memberCount(camp.program_id)).toBe(0);
    });

    it("404 customer for another project's customer id", async () => {
      const camp = await campaign();
      const foreign = (await stack.http().post('/v1/customers').set(stack.b.headers).send({ source_id: unique('foreign') })).body;
      const res = await enrol(camp.program_id, byId(foreign.id));
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ key: 'not_found', resource_type: 'customer', resource_id: foreign.id });
    });

    const invalid: [string, unknown, RegExp][] = [
      ['an empty body', {}, /customer_identification/],
      ['customer_identification that is a string', { customer_identification: 'cust_1' }, /customer_identification/],
      ['customer_identification without type', { customer_identification: { customer_source_id: 'x' } }, /customer_identification\.type/],
      ['an unknown type', { customer_identification: { type: 'email', customer_source_id: 'x' } }, /customer_identification\.type/],
      ['type customer_id without customer_id', { customer_identification: { type: 'customer_id' } }, /customer_identification\.customer_id/],
      ['a customer_id that is not cust_…', { customer_identification: { type: 'customer_id', customer_id: 'abc' } }, /customer_identification\.customer_id must match/],
      ['type customer_source_id without customer_source_id', { customer_identification: { type: 'customer_source_id' } }, /customer_identification\.customer_source_id/],
      ['a customer_source_id that is a number', { customer_identification: { type: 'customer_source_id', customer_source_id: 5 } }, /customer_identification\.customer_source_id must be a string/],
      ['a blank customer_source_id', bySource('   '), /customer_identification\.customer_source_id must not be blank/],
      ['a customer_source_id over 255 characters', bySource('x'.repeat(256)), /customer_identification\.customer_source_id/],
      ['an unknown top-level field', bySource('x', { colour: 'red' }), /property colour is not allowed/],
      ['an unknown field in customer_identification', { customer_identification: { type: 'customer_source_id', customer_source_id: 'x', email: 'a@b.c' } }, /property customer_identification\.email is not allowed/],
      ['status DELETED', bySource('x', { status: 'DELETED' }), /status must be one of the following values: ACTIVE, INACTIVE/],
      ['status in lower case', bySource('x', { status: 'active' }), /status/],
      ['metadata that is an array', bySource('x', { metadata: [1] }), /metadata must be an object/],
    ];
    it.each(invalid)('400 invalid_payload: %s', async (_label, body, details) => {
      const camp = await campaign();
      const res = await enrol(camp.program_id, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 400, key: 'invalid_payload', message: 'Invalid payload', details: expect.stringMatching(details), request_id: expect.stringMatching(REQUEST_ID) });
      expect(await memberCount(camp.program_id)).toBe(0);
    });

    it('409 member_already_exists when the customer is already a member, whichever way it is identified; other programs are fine', async () => {
      const camp = await campaign();
      const sourceId = unique('twice');
      const first = await enrol(camp.program_id, bySource(sourceId));
      expect(first.status).toBe(200);
      const customerId: string = first.body.customer_id;
      const expected = {
        code: 409,
        key: 'member_already_exists',
        message: 'Member already exists',
        details: `Customer '${customerId}' already is a member of program '${camp.program_id}'`,
        request_id: expect.stringMatching(REQUEST_ID),
        resource_id: customerId,
        resource_type: 'customer',
      };
      const again = await enrol(camp.program_id, bySource(sourceId));
      expect(again.status).toBe(409);
      expect(again.body).toEqual(expected);
      const byCustomerId = await enrol(camp.program_id, byId(customerId, { status: 'INACTIVE' }));
      expect(byCustomerId.status).toBe(409);
      expect(byCustomerId.body).toEqual(expected);
      expect(await memberCount(camp.program_id)).toBe(1);

      // The same customer can be a member of another program.
      const second = await campaign();
      const elsewhere = await enrol(second.program_id, byId(customerId));
      expect(elsewhere.status).toBe(200);
      expect(elsewhere.body.id).not.toBe(first.body.id);
    });

    it('423 non_active_program for an inactive, expired or not yet started campaign; 200 again once it is active', async () => {
      const camp = await campaign();
      const expected = {
        code: 423,
        key: 'non_active_program',
        message: 'Invalid program status',
        details: 'Cannot create member when program status is not ACTIVE',
        request_id: expect.stringMatching(REQUEST_ID),
        resource_id: camp.program_id,
        resource_type: 'program',
      };
      expect((await stack.http().put(`/v1/loyalties/${camp.id}`).set(stack.a.headers).send({ active: false })).body.active).toBe(false);
      const inactive = await enrol(camp.program_id, bySource(unique('locked')));
      expect(inactive.status).toBe(423);
      expect(inactive.body).toEqual(expected);

      await stack.http().put(`/v1/loyalties/${camp.id}`).set(stack.a.headers).send({ active: true });
      expect((await enrol(camp.program_id, bySource(unique('unlocked')))).status).toBe(200);

      const expired = await campaign({ start_date: '2000-01-01T00:00:00Z', expiration_date: '2001-01-01T00:00:00Z' });
      const late = await enrol(expired.program_id, bySource(unique('late')));
      expect(late.status).toBe(423);
      expect(late.body).toEqual({ ...expected, resource_id: expired.program_id });

      const future = await campaign({ start_date: '2999-01-01T00:00:00Z' });
      const early = await enrol(future.program_id, bySource(unique('early')));
      expect(early.status).toBe(423);
      expect(early.body.key).toBe('non_active_program');
      expect(await memberCount(expired.program_id)).toBe(0);
      expect(await memberCount(future.program_id)).toBe(0);
    });

    it("404 program for an unknown program and for another project's program", async () => {
      const res = await enrol('lprg_0000000000', bySource('x'));
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        code: 404,
        key: 'not_found',
        message: 'Resource not found',
        details: 'Cannot find program with id lprg_0000000000',
        request_id: expect.stringMatching(REQUEST_ID),
        resource_id: 'lprg_0000000000',
        resource_type: 'program',
      });
      const camp = await campaign();
      const foreign = await enrol(camp.program_id, bySource('x'), stack.b);
      expect(foreign.status).toBe(404);
      expect(foreign.body).toMatchObject({ resource_type: 'program', resource_id: camp.program_id });
      expect(await memberCount(camp.program_id)).toBe(0);
    });

    it.each(['prg_123', 'lprg_XYZ', 'lprg_', 'camp_0123456789abcdefABCDEF01'])('400 invalid_query_params for the malformed programId %s', async (programId) => {
      const res = await enrol(programId, bySource('x'));
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 400, key: 'invalid_query_params', details: expect.stringMatching(/programId must match/) });
      expect((await getMember(programId, 'lmbr_00')).status).toBe(400);
    });
  });

  describe('cards', () => {
    it('pre-generated cards are handed out first, then AUTO_UPDATE makes new ones from code_config and vouchers_count grows', async () => {
      const camp = await campaign({
        vouchers_count: 3,
        voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 5 }, code_config: { prefix: 'M-', pattern: '####-##', charset: 'ABCDEF0123' } },
      });
      expect(camp.vouchers_count).toBe(3);
      const pregenerated = await cardCodes(camp.id);
      expect(pregenerated).toHaveLength(3);

      const handed: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        const res = await enrol(camp.program_id, bySource(unique('card')));
        expect(res.status).toBe(200);
        expect(res.body.cards[0].card).toMatchObject({ campaign_id: camp.id, balance: { points: 5, pending_points: 0 }, points_total: 5 });
        handed.push(res.body.cards[0].card.code);
      }
      expect([...handed.slice(0, 3)].sort()).toEqual([...pregenerated].sort());
      for (const code of handed.slice(3)) {
        expect(pregenerated).not.toContain(code);
        expect(code).toMatch(/^M-[A-F0-3]{4}-[A-F0-3]{2}$/);
      }
      expect(new Set(handed).size).toBe(5);
      expect((await stack.http().get(`/v1/loyalties/${camp.id}`).set(stack.a.headers)).body.vouchers_count).toBe(5);
      expect(await cardCodes(camp.id)).toHaveLength(5);
    });

    it('a STATIC campaign without a free card answers 400 no_voucher_suitable_for_publication and leaves no member; the same customer enrols once the campaign may make cards', async () => {
      const camp = await campaign({ type: 'STATIC', vouchers_count: 1 });
      const [only] = await cardCodes(camp.id);
      const first = await enrol(camp.program_id, bySource(unique('static-a')));
      expect(first.status).toBe(200);
      expect(first.body.cards[0].card.code).toBe(only);

      const sourceId = unique('static-b');
      const none = await enrol(camp.program_id, bySource(sourceId));
      expect(none.status).toBe(400);
      expect(none.body).toEqual({
        code: 400,
        key: 'no_voucher_suitable_for_publication',
        message: "Couldn't find any voucher suitable for publication",
        details: expect.stringContaining(camp.id),
        request_id: expect.stringMatching(REQUEST_ID),
        resource_id: camp.id,
        resource_type: 'campaign',
      });
      expect(await memberCount(camp.program_id)).toBe(1);
      expect(await listIds(camp.program_id)).toEqual([first.body.id]);
      expect((await stack.http().get(`/v1/loyalties/${camp.id}`).set(stack.a.headers)).body.vouchers_count).toBe(1);

      // Once the campaign may make cards, the same customer enrols (no stale member blocks it).
      await stack.http().put(`/v1/loyalties/${camp.id}`).set(stack.a.headers).send({ type: 'AUTO_UPDATE' });
      const later = await enrol(camp.program_id, bySource(sourceId));
      expect(later.status).toBe(200);
      expect(later.body.cards[0].card.code).not.toBe(only);
    });

    it('20 parallel enrolments into a campaign with 10 pre-generated cards: all 200 with 20 distinct cards, the 10 pre-generated ones all used', async () => {
      const camp = await campaign({ vouchers_count: 10, voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 3 }, code_config: { pattern: 'P-######' } } });
      const pregenerated = await cardCodes(camp.id);
      expect(pregenerated).toHaveLength(10);
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => enrol(camp.program_id, bySource(unique(`parallel-${i}`)))));
      // The bodies of any refusal, so that a failure says which one it was.
      expect(results.filter((r) => r.status !== 200).map((r) => r.body)).toEqual([]);
      const codes = results.map((r) => (r.body.cards as MemberCard[])[0].card.code);
      expect(new Set(codes).size).toBe(20);
      for (const code of pregenerated) expect(codes).toContain(code);
      expect(new Set(results.map((r) => r.body.customer_id)).size).toBe(20);
      expect(await memberCount(camp.program_id)).toBe(20);
      expect((await stack.http().get(`/v1/loyalties/${camp.id}`).set(stack.a.headers)).body.vouchers_count).toBe(20);
      const owners = await db.query<{ n: number; distinct_members: number }>(
        'SELECT count(*)::int AS n, count(DISTINCT member_id)::int AS distinct_members FROM vouchers WHERE campaign_id = $1 AND member_id IS NOT NULL',
        [camp.id],
      );
      expect(owners.rows[0]).toEqual({ n: 20, distinct_members: 20 });
    });

    it('20 parallel enrolments into a STATIC campaign with 10 cards: exactly 10 get a card, 10 get 400, and no member is left without a card', async () => {
      const camp = await campaign({ type: 'STATIC', vouchers_count: 10 });
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => enrol(camp.program_id, bySource(unique(`static-parallel-${i}`)))));
      const ok = results.filter((r) => r.status === 200);
      expect(results.filter((r) => r.status !== 200).map((r) => r.body)).toEqual(Array(10).fill(expect.objectContaining({ code: 400, key: 'no_voucher_suitable_for_publication' })));
      expect(ok).toHaveLength(10);
      expect(new Set(ok.map((r) => (r.body.cards as MemberCard[])[0].card.code))).toEqual(new Set(await cardCodes(camp.id)));
      expect(await memberCount(camp.program_id)).toBe(10);
      expect((await stack.http().get(`/v1/loyalties/${camp.id}`).set(stack.a.headers)).body.vouchers_count).toBe(10);
    });

    it('AUTO_UPDATE with its code space used up answers 400 no_voucher_suitable_for_publication and leaves no member', async () => {
      const prefix = `ONE${Date.now().toString(36).toUpperCase()}-`;
      const camp = await campaign({ voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 }, code_config: { prefix, pattern: '#', charset: 'Z' } } });
      const first = await enrol(camp.program_id, bySource(unique('one-code')));
      expect(first.status).toBe(200);
      expect(first.body.cards[0].card.code).toBe(`${prefix}Z`);
      const second = await enrol(camp.program_id, bySource(unique('no-code')));
      expect(second.status).toBe(400);
      expect(second.body).toMatchObject({ key: 'no_voucher_suitable_for_publication', resource_type: 'campaign', resource_id: camp.id, details: expect.stringMatching(/Couldn't create new vouchers for publication/) });
      expect(await memberCount(camp.program_id)).toBe(1);
      expect((await stack.http().get(`/v1/loyalties/${camp.id}`).set(stack.a.headers)).body.vouchers_count).toBe(1);
    });

    it('10 parallel enrolments of the same new source id: exactly one 200, the rest 409, one customer and one card', async () => {
      const camp = await campaign({ vouchers_count: 5 });
      const sourceId = unique('race');
      const results = await Promise.all(Array.from({ length: 10 }, () => enrol(camp.program_id, bySource(sourceId))));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([200, ...Array(9).fill(409)]);
      for (const res of results.filter((r) => r.status === 409)) expect(res.body.key).toBe('member_already_exists');
      const customers = await db.query<{ id: string }>('SELECT id FROM customers WHERE project_id = $1 AND source_id = $2', [stack.a.project.id, sourceId]);
      expect(customers.rows).toHaveLength(1);
      expect(results.find((r) => r.status === 200)?.body.customer_id).toBe(customers.rows[0].id);
      expect(await memberCount(camp.program_id)).toBe(1);
      const taken = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM vouchers WHERE campaign_id = $1 AND member_id IS NOT NULL', [camp.id]);
      expect(taken.rows[0].n).toBe(1);
    });
  });

  describe('member resources', () => {
    it('GET answers the member with its card and balance; 404 for an unknown id, another program and another project', async () => {
      const camp = await campaign({ voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 40 } } });
      const created = (await enrol(camp.program_id, bySource(unique('get'), { metadata: { k: 'v' } }))).body;
      const res = await getMember(camp.program_id, created.id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(created);
      expect(res.body.cards[0].card.balance).toEqual({ points: 40, pending_points: 0 });

      const notFound = (memberId: string) => ({
        code: 404,
        key: 'not_found',
        message: 'Resource not found',
        details: `Cannot find member with id ${memberId}`,
        request_id: expect.stringMatching(REQUEST_ID),
        resource_id: memberId,
        resource_type: 'member',
      });
      const unknown = await getMember(camp.program_id, 'lmbr_0000000000');
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual(notFound('lmbr_0000000000'));

      const otherProgram = await campaign();
      const wrongProgram = await getMember(otherProgram.program_id, created.id);
      expect(wrongProgram.status).toBe(404);
      expect(wrongProgram.body).toEqual(notFound(created.id));
      expect((await putMember(otherProgram.program_id, created.id, { metadata: { x: 1 } })).status).toBe(404);
      expect((await action(otherProgram.program_id, created.id, 'deactivate')).status).toBe(404);
      expect((await remove(otherProgram.program_id, created.id)).status).toBe(404);

      expect((await getMember(camp.program_id, created.id, stack.b)).status).toBe(404);
      expect((await putMember(camp.program_id, created.id, { metadata: { x: 1 } }, stack.b)).status).toBe(404);
      expect((await action(camp.program_id, created.id, 'deactivate', stack.b)).status).toBe(404);
      expect((await remove(camp.program_id, created.id, stack.b)).status).toBe(404);
      // None of the refused calls changed the member.
      expect((await getMember(camp.program_id, created.id)).body).toEqual(created);
    });

    it('PUT merges metadata, removes keys sent as null, clears on null, and answers the member without cards', async () => {
      const camp = await campaign();
      const created = (await enrol(camp.program_id, bySource(unique('put')))).body;
      const first = await putMember(camp.program_id, created.id, { metadata: { a: 1, nested: { x: 1 } } });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({
        id: created.id,
        customer_id: created.customer_id,
        program_id: camp.program_id,
        status: 'ACTIVE',
        metadata: { a: 1, nested: { x: 1 } },
        created_at: created.created_at,
        updated_at: expect.stringMatching(ISO),
        object: 'member',
      });
      expect(Date.parse(first.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.created_at));

      expect((await putMember(camp.program_id, created.id, { metadata: { b: 2, nested: { y: 2 } } })).body.metadata).toEqual({ a: 1, b: 2, nested: { y: 2 } });
      expect((await putMember(camp.program_id, created.id, { metadata: { a: null, c: 'three' } })).body.metadata).toEqual({ b: 2, c: 'three', nested: { y: 2 } });
      expect((await getMember(camp.program_id, created.id)).body).toMatchObject({ metadata: { b: 2, c: 'three', nested: { y: 2 } }, updated_at: expect.stringMatching(ISO) });
      expect((await putMember(camp.program_id, created.id, { metadata: {} })).body.metadata).toEqual({ b: 2, c: 'three', nested: { y: 2 } });
      const cleared = await putMember(camp.program_id, created.id, { metadata: null });
      expect(cleared.status).toBe(200);
      expect(cleared.body.metadata).toEqual({});
      expect((await getMember(camp.program_id, created.id)).body.metadata).toEqual({});

      // An INACTIVE member's metadata can change too.
      await action(camp.program_id, created.id, 'deactivate');
      const inactive = await putMember(camp.program_id, created.id, { metadata: { z: true } });
      expect(inactive.body).toMatchObject({ status: 'INACTIVE', metadata: { z: true } });
    });

    const badUpdates: [string, unknown, RegExp][] = [
      ['an empty body', {}, /metadata is required/],
      ['metadata that is a string', { metadata: 'x' }, /metadata must be an object/],
      ['metadata that is an array', { metadata: [1] }, /metadata must be an object/],
      ['a status change', { metadata: {}, status: 'INACTIVE' }, /property status is not allowed/],
      ['a body that is an array', [{ metadata: {} }], /JSON object/],
    ];
    it.each(badUpdates)('PUT 400 invalid_payload: %s, and nothing changes', async (_label, body, details) => {
      const camp = await campaign();
      const created = (await enrol(camp.program_id, bySource(unique('bad-put'), { metadata: { keep: 1 } }))).body;
      const res = await putMember(camp.program_id, created.id, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 400, key: 'invalid_payload', details: expect.stringMatching(details) });
      expect((await getMember(camp.program_id, created.id)).body).toMatchObject({ metadata: { keep: 1 }, updated_at: null, status: 'ACTIVE' });
    });

    it('deactivate and activate are idempotent and answer the member', async () => {
      const camp = await campaign();
      const created = (await enrol(camp.program_id, bySource(unique('toggle')))).body;
      const off = await action(camp.program_id, created.id, 'deactivate');
      expect(off.status).toBe(200);
      expect(off.body).toEqual({ ...created, cards: undefined, status: 'INACTIVE', updated_at: expect.stringMatching(ISO) });
      expect(off.body).not.toHaveProperty('cards');
      const offAgain = await action(camp.program_id, created.id, 'deactivate');
      expect(offAgain.status).toBe(200);
      expect(offAgain.body).toMatchObject({ status: 'INACTIVE', updated_at: off.body.updated_at });
      expect((await getMember(camp.program_id, created.id)).body.status).toBe('INACTIVE');
      // INACTIVE members stay listed.
      expect(await listIds(camp.program_id)).toContain(created.id);

      const on = await action(camp.program_id, created.id, 'activate');
      expect(on.status).toBe(200);
      expect(on.body.status).toBe('ACTIVE');
      const onAgain = await action(camp.program_id, created.id, 'activate');
      expect(onAgain.body).toMatchObject({ status: 'ACTIVE', updated_at: on.body.updated_at });
      expect((await getMember(camp.program_id, created.id)).body.status).toBe('ACTIVE');

      for (const verb of ['activate', 'deactivate'] as const) {
        const missing = await action(camp.program_id, 'lmbr_0000000000', verb);
        expect(missing.status).toBe(404);
        expect(missing.body).toMatchObject({ key: 'not_found', resource_type: 'member', resource_id: 'lmbr_0000000000' });
      }
    });

    it('DELETE answers status DELETED; afterwards every member route is 404 and the member is not listed', async () => {
      const camp = await campaign();
      const created = (await enrol(camp.program_id, bySource(unique('delete')))).body;
      const kept = (await enrol(camp.program_id, bySource(unique('kept')))).body;
      const del = await remove(camp.program_id, created.id);
      expect(del.status).toBe(200);
      expect(del.body).toEqual({
        id: created.id,
        customer_id: created.customer_id,
        program_id: camp.program_id,
        status: 'DELETED',
        metadata: {},
        created_at: created.created_at,
        updated_at: expect.stringMatching(ISO),
        object: 'member',
      });

      const get = await getMember(camp.program_id, created.id);
      expect(get.status).toBe(404);
      expect(get.body).toMatchObject({ key: 'not_found', details: `Cannot find member with id ${created.id}`, resource_type: 'member' });
      expect((await putMember(camp.program_id, created.id, { metadata: { a: 1 } })).status).toBe(404);
      expect((await action(camp.program_id, created.id, 'activate')).status).toBe(404);
      expect((await action(camp.program_id, created.id, 'deactivate')).status).toBe(404);
      expect(await listIds(camp.program_id)).toEqual([kept.id]);
      // Still deleted: none of the refused calls revived it.
      const row = await db.query<{ status: string }>('SELECT status FROM members WHERE id = $1', [created.id]);
      expect(row.rows[0].status).toBe('DELETED');
    });

    it('DELETE of an already deleted member is 404', async () => {
      const camp = await campaign();
      const created = (await enrol(camp.program_id, bySource(unique('delete-twice')))).body;
      expect((await remove(camp.program_id, created.id)).status).toBe(200);
      const again = await remove(camp.program_id, created.id);
      expect(again.status).toBe(404);
      expect(again.body).toMatchObject({ key: 'not_found', resource_type: 'member', resource_id: created.id });
    });

    it('a deleted member\'s customer can enrol again with a new member and a new card; the old card is never handed out again', async () => {
      const camp = await campaign({ type: 'STATIC', vouchers_count: 2 });
      const sourceId = unique('again');
      const first = (await enrol(camp.program_id, bySource(sourceId))).body;
      const oldCode: string = first.cards[0].card.code;
      expect((await remove(camp.program_id, first.id)).status).toBe(200);

      const second = await enrol(camp.program_id, bySource(sourceId));
      expect(second.status).toBe(200);
      expect(second.body.id).not.toBe(first.id);
      expect(second.body.customer_id).toBe(first.customer_id);
      expect(second.body.cards[0].card.code).not.toBe(oldCode);
      expect(second.body.cards).toHaveLength(1);

      // Both pre-generated cards are now taken (one by the deleted member): a third customer gets none.
      const third = await enrol(camp.program_id, bySource(unique('third')));
      expect(third.status).toBe(400);
      expect(third.body.key).toBe('no_voucher_suitable_for_publication');

      const oldCard = await db.query<{ member_id: string }>('SELECT member_id FROM vouchers WHERE campaign_id = $1 AND code = $2', [camp.id, oldCode]);
      expect(oldCard.rows[0].member_id).toBe(first.id);
      expect(await listIds(camp.program_id)).toEqual([second.body.id]);
      // The old member id still answers 404 even though the customer is a member again.
      expect((await getMember(camp.program_id, first.id)).status).toBe(404);
      expect((await getMember(camp.program_id, second.body.id)).body.cards.map((c: MemberCard) => c.card.code)).toEqual([second.body.cards[0].card.code]);
    });
  });
});

