import { useStack } from '../support/fixture.js';
import { REQUEST_ID, type TestProject, createFinishedCampaign } from '../support/harness.js';
import { Answers, type PointsCampaign, enrol, unique } from '../support/points.js';

/**
 * The rewards routes over HTTP: the catalogue, both families of assignment routes, the member's rewards, their
 * answers and errors; another project's key on every route; concurrent creates of one assignment. The rules
 * themselves are proved in test/service/rewards.service-spec.ts.
 */
describe('rewards and reward assignments over HTTP', () => {
  const stack = useStack({ projects: ['Rewards A', 'Rewards B'], pointsDb: true });
  const api = () => stack.http();

  /** A campaign that makes each member's card at enrolment, with `points` on it. */
  const newCampaign = (who: TestProject, points = 0) =>
    createFinishedCampaign<PointsCampaign>(stack.app, who, { name: unique('Rewards campaign'), type: 'AUTO_UPDATE', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points } } });

  /** Every rewards row of a project, for "changes nothing". */
  const snapshot = async (projectId: string) => ({
    rewards: await stack.db.query('SELECT * FROM rewards WHERE project_id = $1 ORDER BY id', [projectId]),
    assignments: await stack.db.query('SELECT * FROM reward_assignments WHERE project_id = $1 ORDER BY id', [projectId]),
  });

  it('a catalogue\'s life through both families of routes, with Voucherify\'s answers and errors', async () => {
    const a = stack.a.headers;
    const campaign = await newCampaign(stack.a, 120);
    const code = await enrol(stack.app, stack.a, campaign, unique('rewards-member'));

    const material = await api().post('/v1/rewards').set(a).send({ name: 'Mug', type: 'MATERIAL', parameters: { product: { id: 'prod_mug', sku_id: null } }, stock: 2, attributes: { description: 'Blue' } });
    expect(material.status).toBe(200);
    expect(material.headers['x-request-id']).toMatch(REQUEST_ID);
    expect(material.body).toMatchObject({ id: expect.stringMatching(/^rew_/), type: 'MATERIAL', stock: 2, redeemed: 0, object: 'reward', updated_at: null });
    const coin = await api().post('/v1/rewards').set(a).send({ name: '100 = 20', parameters: { coin: { exchange_ratio: 20, points_ratio: 100 } } });
    const points = await api().post('/v1/rewards').set(a).send({ name: 'Bonus', parameters: { campaign: { id: campaign.name, balance: 50 } } });
    expect(points.body.parameters).toEqual({ campaign: { id: campaign.id, balance: 50, type: 'LOYALTY_PROGRAM' } });

    // The campaign's family: an array in, an array out, in the order sent.
    const made = await api()
      .post(`/v1/loyalties/${campaign.id}/rewards`)
      .set(a)
      .send([
        { reward: material.body.id, parameters: { loyalty: { points: 100 } } },
        { reward: coin.body.id },
      ]);
    expect(made.status).toBe(200);
    expect(made.body.map((item: { reward_id: string }) => item.reward_id)).toEqual([material.body.id, coin.body.id]);
    const [materialAssignment, coinAssignment] = made.body as { id: string }[];
    // The reward's family: one object in, one out.
    const bonus = await api().post(`/v1/rewards/${points.body.id}/assignments`).set(a).send({ campaign: campaign.id, parameters: { loyalty: { points: 500 } } });
    expect(bonus.status).toBe(200);
    expect(bonus.body).toMatchObject({ reward_id: points.body.id, related_object_id: campaign.id, related_object_type: 'campaign', parameters: { loyalty: { points: 500 } }, object: 'reward_assignment' });

    const list = await api().get(`/v1/loyalties/${campaign.id}/rewards?limit=2&page=1`).set(a);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ object: 'list', data_ref: 'data', total: 3 });
    expect(list.body.data.map((item: { id: string }) => item.id)).toEqual([materialAssignment.id, coinAssignment.id]);
    expect((await api().get(`/v1/loyalties/${campaign.id}/reward-assignments?page=2&limit=2`).set(a)).body.data.map((item: { id: string }) => item.id)).toEqual([bonus.body.id]);
    expect((await api().get(`/v1/loyalties/${campaign.id}/rewards?assignment_id=${coinAssignment.id}`).set(a)).body).toMatchObject({ total: 1, data: [{ id: coinAssignment.id }] });
    for (const path of [`/v1/loyalties/${campaign.id}/rewards/${coinAssignment.id}`, `/v1/loyalties/${campaign.id}/reward-assignments/${coinAssignment.id}`, `/v1/rewards/${coin.body.id}/assignments/${coinAssignment.id}`]) {
      const res = await api().get(path).set(a);
      expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 200, body: made.body[1] });
    }
    expect((await api().get(`/v1/loyalties/${campaign.id}/reward-assignments/${materialAssignment.id}/reward`).set(a)).body).toEqual(material.body);
    expect((await api().get(`/v1/rewards/${material.body.id}/assignments`).set(a)).body).toMatchObject({ object: 'list', data_ref: 'data', total: 1, data: [{ id: materialAssignment.id }] });
    expect((await api().get(`/v1/rewards?assignment_id=${bonus.body.id}`).set(a)).body).toMatchObject({ total: 1, data: [{ id: points.body.id }] });
    expect((await api().get('/v1/rewards?limit=1&page=3').set(a)).body).toMatchObject({ object: 'list', data_ref: 'data', total: 3, data: [{ id: points.body.id }] });

    // The member's rewards: 120 points buy the mug (100) and a COIN unit (100), not the bonus (500).
    const mine = await api().get(`/v1/loyalties/members/${code}/rewards?affordable_only=true`).set(a);
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ object: 'list', data_ref: 'data', total: 2 });
    expect(mine.body.data.map((item: { reward: { id: string }; assignment: { id: string }; object: string }) => [item.reward.id, item.assignment.id, item.object])).toEqual([
      [material.body.id, materialAssignment.id, 'loyalty_reward'],
      [coin.body.id, coinAssignment.id, 'loyalty_reward'],
    ]);
    expect((await api().get(`/v1/loyalties/members/${code}/rewards`).set(a)).body.total).toBe(3);

    const updated = await api().put(`/v1/loyalties/${campaign.id}/rewards/${materialAssignment.id}`).set(a).send({ parameters: { loyalty: { points: 150 } } });
    expect(updated.body).toMatchObject({ id: materialAssignment.id, parameters: { loyalty: { points: 150 } }, updated_at: expect.any(String) });
    expect((await api().put(`/v1/rewards/${material.body.id}/assignments/${materialAssignment.id}`).set(a).send({ parameters: { loyalty: { points: 90 } } })).body.parameters).toEqual({ loyalty: { points: 90 } });
    const renamed = await api().put(`/v1/rewards/${material.body.id}`).set(a).send({ name: 'Big mug', stock: 5 });
    expect(renamed.body).toMatchObject({ name: 'Big mug', stock: 5, updated_at: expect.any(String) });

    // Errors, as Voucherify answers them.
    const inUse = await api().delete(`/v1/rewards/${material.body.id}`).set(a);
    expect(inUse.status).toBe(400);
    expect(inUse.body).toEqual({
      code: 400,
      key: 'resource_in_use',
      message: 'Resource in use',
      details: `Resource reward with id ${material.body.id} is in use by reward_assignments with ids [${materialAssignment.id}]`,
      request_id: expect.stringMatching(REQUEST_ID),
      related_object_ids: [materialAssignment.id],
      related_object_type: 'reward_assignment',
      related_object_total: 1,
    });
    const twice = await api().post(`/v1/loyalties/${campaign.id}/rewards`).set(a).send([{ reward: material.body.id, parameters: { loyalty: { points: 1 } } }]);
    expect({ status: twice.status, body: twice.body }).toMatchObject({ status: 409, body: { key: 'duplicate_found', details: `Duplicated reward_assignment exists with id ${materialAssignment.id}`, resource_id: materialAssignment.id, resource_type: 'reward_assignment' } });
    const missing = await api().post(`/v1/rewards/${material.body.id}/assignments`).set(a).send({ campaign: campaign.id });
    expect({ status: missing.status, key: missing.body.key, details: missing.body.details }).toEqual({ status: 400, key: 'missing_param', details: "Parameter 'parameters.loyalty' is required" });
    const unknown = await api().get('/v1/rewards/rew_nope').set(a);
    expect({ status: unknown.status, body: unknown.body }).toMatchObject({ status: 404, body: { key: 'not_found', details: 'Cannot find reward with id rew_nope', resource_id: 'rew_nope', resource_type: 'reward' } });
    expect((await api().get(`/v1/loyalties/${campaign.id}/rewards/rewa_nope`).set(a)).body).toMatchObject({ key: 'not_found', resource_type: 'reward_assignment' });
    expect((await api().get('/v1/loyalties/No such campaign/rewards').set(a)).body).toMatchObject({ key: 'not_found', resource_type: 'campaign' });
    expect((await api().get('/v1/loyalties/members/NO-SUCH-CARD/rewards').set(a)).body).toMatchObject({ key: 'not_found', resource_type: 'voucher', details: 'Cannot find voucher with id NO-SUCH-CARD' });
    expect((await api().post(`/v1/loyalties/${campaign.id}/rewards`).set(a).send({ reward: coin.body.id })).body).toMatchObject({ code: 400, key: 'invalid_payload', details: 'Request body must be a JSON array' });
    expect((await api().get(`/v1/loyalties/members/${code}/rewards?affordable_only=yes`).set(a)).body).toMatchObject({ code: 400, key: 'invalid_query_params', details: 'affordable_only must be true or false' });

    // Deleted: 204 with no body, the assignment first, then the reward.
    const gone = await api().delete(`/v1/loyalties/${campaign.id}/rewards/${materialAssignment.id}`).set(a);
    expect({ status: gone.status, body: gone.text }).toEqual({ status: 204, body: '' });
    expect((await api().delete(`/v1/rewards/${material.body.id}`).set(a)).status).toBe(204);
    expect((await api().get(`/v1/rewards/${material.body.id}`).set(a)).status).toBe(404);
    expect((await api().delete(`/v1/rewards/${coin.body.id}/assignments/${coinAssignment.id}`).set(a)).status).toBe(204);
  });

  it('another project\'s key gets 404 on every route and changes nothing', async () => {
    const a = stack.a.headers;
    const b = stack.b.headers;
    const campaign = await newCampaign(stack.a);
    const code = await enrol(stack.app, stack.a, campaign, unique('isolated-member'));
    const reward = (await api().post('/v1/rewards').set(a).send({ name: 'A\'s mug', parameters: { product: { id: 'prod_mug' } } })).body as { id: string };
    const other = (await api().post('/v1/rewards').set(a).send({ name: 'A\'s coin', parameters: { coin: { exchange_ratio: 1 } } })).body as { id: string };
    const [assignment] = (await api().post(`/v1/loyalties/${campaign.id}/rewards`).set(a).send([{ reward: reward.id, parameters: { loyalty: { points: 10 } } }])).body as { id: string }[];
    // B's own campaign and reward, so that only A's ids are foreign in each call.
    const bCampaign = await newCampaign(stack.b);
    const bReward = (await api().post('/v1/rewards').set(b).send({ name: 'B\'s mug', parameters: { product: { id: 'prod_mug' } } })).body as { id: string };
    const before = await snapshot(stack.a.project.id);

    const price = { parameters: { loyalty: { points: 1 } } };
    const calls: [string, string, object?][] = [
      ['get', `/v1/rewards/${reward.id}`],
      ['put', `/v1/rewards/${reward.id}`, { name: 'Taken' }],
      ['delete', `/v1/rewards/${other.id}`],
      ['get', `/v1/rewards/${reward.id}/assignments`],
      ['post', `/v1/rewards/${other.id}/assignments`, { campaign: bCampaign.id }],
      ['post', `/v1/rewards/${bReward.id}/assignments`, { campaign: campaign.id, ...price }],
      ['get', `/v1/rewards/${reward.id}/assignments/${assignment.id}`],
      ['put', `/v1/rewards/${reward.id}/assignments/${assignment.id}`, price],
      ['delete', `/v1/rewards/${reward.id}/assignments/${assignment.id}`],
      ['post', `/v1/loyalties/${campaign.id}/rewards`, [{ reward: bReward.id, ...price }]],
      ['post', `/v1/loyalties/${bCampaign.id}/rewards`, [{ reward: other.id }]],
      ['get', `/v1/loyalties/${campaign.id}/rewards`],
      ['get', `/v1/loyalties/${campaign.id}/reward-assignments`],
      ['get', `/v1/loyalties/${campaign.id}/rewards/${assignment.id}`],
      ['get', `/v1/loyalties/${bCampaign.id}/rewards/${assignment.id}`],
      ['get', `/v1/loyalties/${campaign.id}/reward-assignments/${assignment.id}`],
      ['get', `/v1/loyalties/${campaign.id}/reward-assignments/${assignment.id}/reward`],
      ['put', `/v1/loyalties/${campaign.id}/rewards/${assignment.id}`, price],
      ['delete', `/v1/loyalties/${campaign.id}/rewards/${assignment.id}`],
      ['get', `/v1/loyalties/members/${code}/rewards`],
    ];
    for (const [method, path, payload] of calls) {
      const req = api()[method as 'get'](path).set(b);
      const res = payload ? await req.send(payload) : await req;
      expect({ call: `${method.toUpperCase()} ${path}`, status: res.status, key: res.body.key }).toEqual({ call: `${method.toUpperCase()} ${path}`, status: 404, key: 'not_found' });
    }
    // B's list of rewards shows only its own; an assignment id of A's filters it to nothing.
    expect((await api().get('/v1/rewards').set(b)).body).toMatchObject({ total: 1, data: [{ id: bReward.id }] });
    expect((await api().get(`/v1/rewards?assignment_id=${assignment.id}`).set(b)).body).toMatchObject({ total: 0, data: [] });
    expect(await snapshot(stack.a.project.id)).toEqual(before);
  });

  it('concurrent creates of one assignment, through both families: exactly one, the others 409, no 5xx', async () => {
    const a = stack.a.headers;
    const campaign = await newCampaign(stack.a);
    const answers = new Answers();
    for (let round = 0; round < 4; round += 1) {
      const reward = (await api().post('/v1/rewards').set(a).send({ name: unique('Raced'), parameters: { product: { id: 'prod_race' } } })).body as { id: string };
      const other = (await api().post('/v1/rewards').set(a).send({ name: unique('Beside'), parameters: { coin: { exchange_ratio: 1 } } })).body as { id: string };
      const price = { parameters: { loyalty: { points: 10 + round } } };
      const results = await Promise.all(
        Array.from({ length: 16 }, (_, i) => {
          if (i % 3 === 0) return api().post(`/v1/rewards/${reward.id}/assignments`).set(a).send({ campaign: campaign.id, ...price });
          // An array with another reward too: all of it or none of it.
          if (i % 3 === 1) return api().post(`/v1/loyalties/${campaign.id}/rewards`).set(a).send([{ reward: other.id }, { reward: reward.id, ...price }]);
          return api().post(`/v1/loyalties/${campaign.name}/rewards`).set(a).send([{ reward: reward.id, ...price }]);
        }),
      );
      results.forEach((res) => answers.add(res));
      expect(results.filter((res) => res.status === 200)).toHaveLength(1);
      expect(results.filter((res) => res.status === 409).length).toBe(15);
      const rows = await stack.db.query<{ reward_id: string; n: number }>('SELECT reward_id, count(*)::int AS n FROM reward_assignments WHERE campaign_id = $1 AND reward_id IN ($2, $3) GROUP BY reward_id', [campaign.id, reward.id, other.id]);
      const winner = results.find((res) => res.status === 200)?.body as { reward_id?: string } | { reward_id: string }[];
      // The winner's array made the other reward's assignment too; a single winner did not.
      const expected = Array.isArray(winner) && winner.length === 2 ? 2 : 1;
      expect(rows.length).toBe(expected);
      expect(rows.every((row) => row.n === 1)).toBe(true);
    }
    expect(answers.report(['409 duplicate_found']).unexpected).toEqual({});
  });

  it('a reward deleted while it is being assigned: never a 5xx, and never an assignment without its reward', async () => {
    const a = stack.a.headers;
    const campaign = await newCampaign(stack.a);
    const answers = new Answers();
    for (let round = 0; round < 6; round += 1) {
      const reward = (await api().post('/v1/rewards').set(a).send({ name: unique('Going'), parameters: { product: { id: 'prod_going' } } })).body as { id: string };
      const results = await Promise.all([
        api().delete(`/v1/rewards/${reward.id}`).set(a),
        api().post(`/v1/rewards/${reward.id}/assignments`).set(a).send({ campaign: campaign.id, parameters: { loyalty: { points: 5 } } }),
        api().post(`/v1/loyalties/${campaign.id}/rewards`).set(a).send([{ reward: reward.id, parameters: { loyalty: { points: 5 } } }]),
        api().delete(`/v1/rewards/${reward.id}`).set(a),
      ]);
      results.forEach((res) => answers.add(res));
      const exists = await stack.db.count('SELECT 1 FROM rewards WHERE id = $1', [reward.id]);
      const assigned = await stack.db.count('SELECT 1 FROM reward_assignments WHERE reward_id = $1', [reward.id]);
      // Either the reward went first (no assignment, one 204), or an assignment went first (it stays, with its reward).
      expect({ exists, assigned }).toEqual(assigned ? { exists: 1, assigned: 1 } : { exists: 0, assigned: 0 });
    }
    expect(answers.report(['204', '400 resource_in_use', '404 not_found', '409 duplicate_found']).unexpected).toEqual({});
    expect(Object.keys(answers.histogram).every((key) => !key.startsWith('5'))).toBe(true);
  });
});
