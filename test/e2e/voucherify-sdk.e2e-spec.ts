// The SDK ships a UMD bundle as its Node entry: Node's ESM loader exposes it as one default export.
import voucherify from '@voucherify/sdk';
import { useStack } from '../support/fixture.js';
import { createProject, waitFor } from '../support/harness.js';

/** The official client (@voucherify/sdk 2.9.0, as a migrating user has it) against a real server. */
describe('official Voucherify JS SDK (@voucherify/sdk 2.9.0)', () => {
  const stack = useStack({ listen: true, worker: true, projects: 1 });
  let client: ReturnType<typeof voucherify.VoucherifyServerSide>;
  let apiUrl: string;

  beforeAll(async () => {
    apiUrl = stack.baseUrl;
    client = voucherify.VoucherifyServerSide({ applicationId: stack.a.app_id, secretKey: stack.a.app_token, apiUrl });
  });

  it('create, get (by id and by name), update, list and delete a loyalty campaign; the deletion\'s async action', async () => {
    const created = await client.loyalties.create({
      name: 'SDK Loyalty Campaign',
      vouchers_count: 20,
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 10 }, code_config: { pattern: 'L-CARD-#######' } },
      metadata: { source: 'sdk' },
    });
    expect(created).toMatchObject({ object: 'campaign', name: 'SDK Loyalty Campaign', campaign_type: 'LOYALTY_PROGRAM', join_once: true });
    expect(created.id).toMatch(/^camp_/);

    const byName = await client.loyalties.get('SDK Loyalty Campaign');
    expect(byName.id).toBe(created.id);
    const done = await waitFor(async () => {
      const got = await client.loyalties.get(created.id);
      return got.vouchers_generation_status === 'DONE' ? got : undefined;
    });
    expect(done.vouchers_count).toBe(20);

    const updated = await client.loyalties.update({ id: created.id, description: 'updated through the SDK', metadata: { extra: true } });
    expect(updated).toMatchObject({ id: created.id, description: 'updated through the SDK', metadata: { source: 'sdk', extra: true } });

    const list = await client.loyalties.list({ limit: 10, page: 1 });
    expect(list).toMatchObject({ object: 'list', data_ref: 'campaigns', total: 1 });
    expect(list.campaigns?.map((c) => c.id)).toEqual([created.id]);

    // Voucherify answers a deletion with an async action's id; the SDK's async-actions client reads it back.
    const deletion = (await client.loyalties.delete(created.id)) as { async_action_id: string };
    expect(deletion).toEqual({ async_action_id: expect.stringMatching(/^aa_[0-9a-f]{18}$/) });
    const action = await client.asyncActions.get(deletion.async_action_id);
    expect(action).toMatchObject({ id: deletion.async_action_id, type: 'CAMPAIGN.VOUCHERS_DELETE', status: 'DONE', result: { message: 'Moved 20 vouchers to the bin.', done_count: 20 }, object: 'async_action' });
    const actions = await client.asyncActions.list({ limit: 10 });
    expect(actions).toMatchObject({ object: 'list', data_ref: 'async_actions', async_actions: [{ id: deletion.async_action_id, status: 'DONE' }] });
    const afterDelete = await client.loyalties.get(created.id).catch((error: unknown) => error);
    expect(afterDelete).toMatchObject({ code: 404, key: 'not_found', details: `Cannot find campaign with id ${created.id}`, resource_type: 'campaign' });
  });

  it('errors reach the SDK with code and key from the body', async () => {
    await client.loyalties.create({ name: 'Twice' } as Parameters<typeof client.loyalties.create>[0]);
    const duplicate = await client.loyalties.create({ name: 'Twice' } as Parameters<typeof client.loyalties.create>[0]).catch((error: unknown) => error);
    expect(duplicate).toBeInstanceOf(Error);
    expect(duplicate).toMatchObject({ code: 409, key: 'duplicate_found', message: 'Duplicated resource found', resource_type: 'campaign' });

    const invalid = await client.loyalties.create({ name: 'Bad', type: 'STANDALONE' } as unknown as Parameters<typeof client.loyalties.create>[0]).catch((error: unknown) => error);
    expect(invalid).toMatchObject({ code: 400, key: 'invalid_payload', details: expect.stringMatching(/STANDALONE/) });

    const missing = await client.loyalties.update({ id: 'No such campaign', description: 'x' }).catch((error: unknown) => error);
    expect(missing).toMatchObject({ code: 404, key: 'not_found', details: 'Cannot find campaign with id No such campaign' });

    const wrongKey = voucherify.VoucherifyServerSide({ applicationId: stack.a.app_id, secretKey: 'wrong', apiUrl });
    expect(await wrongKey.loyalties.list().catch((error: unknown) => error)).toMatchObject({ code: 401, key: 'unauthorized', message: 'Unauthorized' });
  });

  it('members: createMember, getMember (with and without the campaign), listMembers, and errors', async () => {
    // A project of its own, so the campaign list of the tests above is not affected.
    const own = await createProject(stack.app, 'SDK members');
    const sdk = voucherify.VoucherifyServerSide({ applicationId: own.app_id, secretKey: own.app_token, apiUrl });
    const campaign = await sdk.loyalties.create({
      name: 'SDK Members Campaign',
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 10 }, code_config: { pattern: 'SDK-######' } },
    });

    const first = await sdk.loyalties.createMember(campaign.id, { customer: { source_id: 'sdk-member-1', name: 'First', email: 'first@example.com' } });
    expect(first).toMatchObject({
      object: 'voucher',
      type: 'LOYALTY_CARD',
      campaign: 'SDK Members Campaign',
      campaign_id: campaign.id,
      active: true,
      loyalty_card: { points: 10, balance: 10 },
      publish: { count: 1 },
    });
    expect(first.id).toMatch(/^v_/);
    expect(first.code).toMatch(/^SDK-[0-9A-Za-z]{6}$/);
    expect(first.holder_id).toMatch(/^cust_/);

    // By campaign name too (the SDK URL-encodes the campaign id).
    const second = await sdk.loyalties.createMember('SDK Members Campaign', { customer: { source_id: 'sdk-member-2' }, metadata: { via: 'sdk' } });
    expect(second.campaign_id).toBe(campaign.id);
    expect(second.code).not.toBe(first.code);

    expect(await sdk.loyalties.getMember(campaign.id, first.code)).toEqual(first);
    expect(await sdk.loyalties.getMember(null, second.code)).toEqual(second);

    const page1 = await sdk.loyalties.listMembers(campaign.id, { limit: 1, page: 1 });
    expect(page1).toMatchObject({ object: 'list', data_ref: 'vouchers', total: 2 });
    expect(page1.vouchers.map((v) => v.code)).toEqual([second.code]);
    const page2 = await sdk.loyalties.listMembers(campaign.id, { limit: 1, page: 2 });
    expect(page2.vouchers.map((v) => v.code)).toEqual([first.code]);
    expect((await sdk.loyalties.listMembers(campaign.id)).vouchers.map((v) => v.code)).toEqual([second.code, first.code]);

    const twice = await sdk.loyalties.createMember(campaign.id, { customer: { source_id: 'sdk-member-1' } }).catch((error: unknown) => error);
    expect(twice).toBeInstanceOf(Error);
    expect(twice).toMatchObject({
      code: 409,
      key: 'member_already_exists',
      message: 'Member already exists',
      details: `Customer '${first.holder_id}' already is a member of program '${(campaign as { program_id?: string }).program_id}'`,
      resource_type: 'customer',
    });

    const missing = await sdk.loyalties.getMember(null, 'SDK-NOPE').catch((error: unknown) => error);
    expect(missing).toMatchObject({ code: 404, key: 'not_found', details: 'Cannot find voucher with id SDK-NOPE', resource_type: 'voucher' });
    const wrongCampaign = await sdk.loyalties.getMember('No such campaign', first.code).catch((error: unknown) => error);
    expect(wrongCampaign).toMatchObject({ code: 404, key: 'not_found', resource_type: 'campaign' });
    const taken = await sdk.loyalties.createMember(campaign.id, { customer: { source_id: 'sdk-member-3' }, voucher: first.code }).catch((error: unknown) => error);
    expect(taken).toMatchObject({ code: 400, key: 'voucher_already_published', resource_id: first.id });
  });

  it('balance: addOrRemoveCardBalance (with and without the campaign), addPoints and getPointsExpiration', async () => {
    const campaign = await client.loyalties.create({
      name: 'SDK Balance Campaign',
      type: 'AUTO_UPDATE',
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } },
    });
    const member = await client.loyalties.createMember(campaign.id, { customer: { source_id: 'sdk-balance-1' } });
    const related = { type: 'voucher', id: member.id };
    const added = await client.loyalties.addOrRemoveCardBalance(member.code, { points: 100, reason: 'welcome', source_id: 'sdk-1' });
    expect(added).toStrictEqual({ points: 100, total: 100, balance: 100, type: 'loyalty_card', object: 'balance', related_object: related, operation_type: 'MANUAL' });
    const removed = await client.loyalties.addOrRemoveCardBalance(member.code, { points: -30 }, 'SDK Balance Campaign');
    expect(removed).toStrictEqual({ points: -30, total: 100, balance: 70, type: 'loyalty_card', object: 'balance', related_object: related, operation_type: 'MANUAL' });
    const more = await client.loyalties.addPoints(campaign.id, member.code, { points: 5, expiration_type: 'CUSTOM_DATE', expiration_date: '2099-12-31' } as Parameters<typeof client.loyalties.addPoints>[2]);
    expect(more).toStrictEqual({ points: 5, total: 105, balance: 75, type: 'loyalty_card', object: 'balance', related_object: related, operation_type: 'MANUAL' });
    const exceeded = await client.loyalties.addOrRemoveCardBalance(member.code, { points: -1000 }).catch((error: unknown) => error);
    expect(exceeded).toMatchObject({ code: 400, key: 'loyalty_card_points_exceeded' });
    const buckets = await client.loyalties.getPointsExpiration(campaign.id, member.code, { limit: 10, page: 1 });
    expect(buckets).toMatchObject({ object: 'list', data_ref: 'data', total: 2 });
    expect(buckets.data.map((b) => [b.bucket.total_points, b.expires_at, b.status, b.object])).toEqual([
      [5, '2099-12-31', 'ACTIVE', 'loyalty_points_bucket'],
      [70, undefined, 'ACTIVE', 'loyalty_points_bucket'],
    ]);
  });
});

/** The SDK's reward methods (rewards.* and the reward ones of loyalties.*), unchanged, against a real server. */
describe('official Voucherify JS SDK: rewards and reward assignments', () => {
  const stack = useStack({ listen: true, projects: 1 });
  type Sdk = ReturnType<typeof voucherify.VoucherifyServerSide>;
  let sdk: Sdk;

  beforeAll(() => {
    sdk = voucherify.VoucherifyServerSide({ applicationId: stack.a.app_id, secretKey: stack.a.app_token, apiUrl: stack.baseUrl });
  });

  it('rewards.list/create/get/update/delete and the assignments of both families; loyalties.getRewardDetails and listMemberRewards', async () => {
    const campaign = await sdk.loyalties.create({
      name: 'SDK Rewards Campaign',
      type: 'AUTO_UPDATE',
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 150 } },
    });
    const member = await sdk.loyalties.createMember(campaign.id, { customer: { source_id: 'sdk-rewards-1' } });

    const mug = await sdk.rewards.create({ name: 'Mug', type: 'MATERIAL', stock: 10, attributes: { description: 'Blue' }, parameters: { product: { id: 'prod_mug' } } });
    expect(mug).toMatchObject({ id: expect.stringMatching(/^rew_/), name: 'Mug', type: 'MATERIAL', stock: 10, redeemed: 0, parameters: { product: { id: 'prod_mug', sku_id: null } }, object: 'reward' });
    const coin = await sdk.rewards.create({ name: '1 point = 0.01', parameters: { coin: { exchange_ratio: 0.01 } } });
    expect(coin).toMatchObject({ type: 'COIN', parameters: { coin: { exchange_ratio: 0.01, points_ratio: 1 } } });
    const bonus = await sdk.rewards.create({ name: 'Bonus', type: 'CAMPAIGN', parameters: { campaign: { id: campaign.id, balance: 25 } } });
    expect(bonus).toMatchObject({ type: 'CAMPAIGN', parameters: { campaign: { id: campaign.id, balance: 25, type: 'LOYALTY_PROGRAM' } } });

    expect(await sdk.rewards.get(mug.id)).toEqual(mug);
    const renamed = await sdk.rewards.update({ id: mug.id, name: 'Big mug', stock: 12 } as Parameters<Sdk['rewards']['update']>[0]);
    expect(renamed).toMatchObject({ id: mug.id, name: 'Big mug', stock: 12, updated_at: expect.any(String) });
    const page = await sdk.rewards.list({ limit: 2, page: 1 });
    expect(page).toMatchObject({ object: 'list', data_ref: 'data', total: 3 });
    expect(page.data.map((reward) => reward.id)).toEqual([mug.id, coin.id]);

    // The campaign's family (an array in, an array out) and the reward's (one object).
    const [mugInCampaign, coinInCampaign] = await sdk.loyalties.createRewardAssignments(campaign.id, [
      { reward: mug.id, parameters: { loyalty: { points: 100 } } },
      { reward: coin.id } as Parameters<Sdk['loyalties']['createRewardAssignments']>[1][number],
    ]);
    expect(mugInCampaign).toMatchObject({ id: expect.stringMatching(/^rewa_/), reward_id: mug.id, related_object_id: campaign.id, related_object_type: 'campaign', parameters: { loyalty: { points: 100 } }, object: 'reward_assignment' });
    const bonusInCampaign = await sdk.rewards.createAssignment(bonus.id, { campaign: campaign.id, parameters: { loyalty: { points: 200 } } });
    expect(bonusInCampaign).toMatchObject({ reward_id: bonus.id, related_object_id: campaign.id, parameters: { loyalty: { points: 200 } } });

    expect(await sdk.loyalties.listRewardAssignments(campaign.id, { limit: 10, page: 1 })).toMatchObject({ object: 'list', data_ref: 'data', total: 3, data: [{ id: mugInCampaign.id }, { id: coinInCampaign.id }, { id: bonusInCampaign.id }] });
    expect(await sdk.loyalties.getRewardAssignment(campaign.id, coinInCampaign.id)).toEqual(coinInCampaign);
    expect(await sdk.rewards.getAssignment(bonus.id, bonusInCampaign.id)).toEqual(bonusInCampaign);
    expect(await sdk.rewards.listAssignments(mug.id, { limit: 10, page: 1 })).toMatchObject({ object: 'list', data_ref: 'data', total: 1, data: [{ id: mugInCampaign.id }] });
    expect(await sdk.loyalties.getRewardDetails(campaign.id, mugInCampaign.id)).toEqual(renamed);

    const repriced = await sdk.loyalties.updateRewardAssignment(campaign.id, { id: mugInCampaign.id, parameters: { loyalty: { points: 120 } } });
    expect(repriced).toMatchObject({ id: mugInCampaign.id, parameters: { loyalty: { points: 120 } }, updated_at: expect.any(String) });
    expect(await sdk.rewards.updateAssignment(bonus.id, { id: bonusInCampaign.id, parameters: { loyalty: { points: 140 } } })).toMatchObject({ id: bonusInCampaign.id, parameters: { loyalty: { points: 140 } } });

    // 150 points: the mug (120), the bonus (140) and the COIN reward (1 point a unit), all affordable; then one page of one.
    const mine = await sdk.loyalties.listMemberRewards(member.code, { affordable_only: true, limit: 10, page: 1 });
    expect(mine).toMatchObject({ object: 'list', data_ref: 'data', total: 3 });
    expect(mine.data.map((item) => [item.reward.id, item.assignment.id, item.object])).toEqual([
      [mug.id, mugInCampaign.id, 'loyalty_reward'],
      [coin.id, coinInCampaign.id, 'loyalty_reward'],
      [bonus.id, bonusInCampaign.id, 'loyalty_reward'],
    ]);
    expect((await sdk.loyalties.listMemberRewards(member.code, { limit: 1, page: 3 })).data.map((item) => item.reward.id)).toEqual([bonus.id]);

    // Voucherify's errors reach the SDK with their key and fields.
    const inUse = await sdk.rewards.delete(mug.id).catch((error: unknown) => error);
    expect(inUse).toBeInstanceOf(Error);
    expect(inUse).toMatchObject({ code: 400, key: 'resource_in_use', message: 'Resource in use' });
    const twice = await sdk.rewards.createAssignment(mug.id, { campaign: campaign.id, parameters: { loyalty: { points: 1 } } }).catch((error: unknown) => error);
    expect(twice).toMatchObject({ code: 409, key: 'duplicate_found', resource_type: 'reward_assignment' });
    expect(await sdk.rewards.get('rew_nope').catch((error: unknown) => error)).toMatchObject({ code: 404, key: 'not_found', resource_type: 'reward' });

    // Deletions: the SDK resolves a 204 to an empty value.
    expect(await sdk.loyalties.deleteRewardAssignment(campaign.id, mugInCampaign.id)).toBeFalsy();
    expect(await sdk.rewards.deleteAssignment(bonus.id, bonusInCampaign.id)).toBeFalsy();
    expect(await sdk.rewards.delete(mug.id)).toBeFalsy();
    expect(await sdk.rewards.get(mug.id).catch((error: unknown) => error)).toMatchObject({ code: 404 });
    expect((await sdk.loyalties.listRewardAssignments(campaign.id)).data.map((assignment) => assignment.id)).toEqual([coinInCampaign.id]);
  });
});

/** The SDK's redemption methods (loyalties.redeemReward and redemptions.*), unchanged, against a real server. */
describe('official Voucherify JS SDK: redeeming rewards and rolling back', () => {
  const stack = useStack({ listen: true, projects: 1 });
  type Sdk = ReturnType<typeof voucherify.VoucherifyServerSide>;
  let sdk: Sdk;

  beforeAll(() => {
    sdk = voucherify.VoucherifyServerSide({ applicationId: stack.a.app_id, secretKey: stack.a.app_token, apiUrl: stack.baseUrl });
  });

  it('loyalties.redeemReward (MATERIAL, COIN paying the order, CAMPAIGN), redemptions.get/list/getForVoucher/rollback, and their errors', async () => {
    const campaign = await sdk.loyalties.create({ name: 'SDK Redeem Campaign', type: 'AUTO_UPDATE', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 1000 } } });
    const other = await sdk.loyalties.create({ name: 'SDK Redeem Gold', type: 'AUTO_UPDATE', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } });
    const member = await sdk.loyalties.createMember(campaign.id, { customer: { source_id: 'sdk-redeem-1' } });
    const mug = await sdk.rewards.create({ name: 'Mug', type: 'MATERIAL', stock: 5, parameters: { product: { id: 'prod_mug' } } });
    const coin = await sdk.rewards.create({ name: '100 = 20', parameters: { coin: { exchange_ratio: 20, points_ratio: 100 } } } as Parameters<Sdk['rewards']['create']>[0]);
    const bonus = await sdk.rewards.create({ name: 'Gold', parameters: { campaign: { id: other.id, balance: 50 } } });
    await sdk.loyalties.createRewardAssignments(campaign.id, [
      { reward: mug.id, parameters: { loyalty: { points: 100 } } },
      { reward: coin.id } as Parameters<Sdk['loyalties']['createRewardAssignments']>[1][number],
      { reward: bonus.id, parameters: { loyalty: { points: 10 } } },
    ]);

    const material = await sdk.loyalties.redeemReward(campaign.id, member.code, { reward: { id: mug.id } });
    expect(material).toMatchObject({ id: expect.stringMatching(/^r_/), object: 'redemption', result: 'SUCCESS', amount: 100, voucher: { code: member.code, loyalty_card: { balance: 900 } }, reward: { id: mug.id } });
    // The SDK's typed params have only reward.id: paying with points, the card pays the whole order.
    const paid = await sdk.loyalties.redeemReward(campaign.id, member.code, { reward: { id: coin.id }, order: { source_id: 'sdk-order-1', amount: 1500 } });
    expect(paid).toMatchObject({ amount: 100, order: { source_id: 'sdk-order-1', discount_amount: 1500, total_amount: 0 } });
    const gold = await sdk.loyalties.redeemReward(campaign.id, member.code, { reward: { id: bonus.id } });
    expect(gold).toMatchObject({ amount: 10, reward: { type: 'CAMPAIGN', voucher: { campaign_id: other.id, loyalty_card: { balance: 50 } } } });

    expect(await sdk.redemptions.get(material.id)).toMatchObject({ id: material.id, status: 'SUCCEEDED' });
    const rolledBack = await sdk.redemptions.rollback(material.id, { reason: 'returned', tracking_id: 'sdk-track' });
    expect(rolledBack).toMatchObject({ id: expect.stringMatching(/^rr_/), object: 'redemption_rollback', redemption: material.id, reason: 'returned', tracking_id: 'sdk-track', amount: -100 });
    expect(await sdk.redemptions.get(material.id)).toMatchObject({ status: 'ROLLED_BACK', related_redemptions: { rollbacks: [{ id: rolledBack.id }] } });
    // The string form (the SDK's code takes it; its type does not say so): the reason alone.
    const again = await sdk.redemptions.rollback(paid.id, 'changed mind' as unknown as Parameters<Sdk['redemptions']['rollback']>[1]);
    expect(again).toMatchObject({ redemption: paid.id, reason: 'changed mind' });

    const list = await sdk.redemptions.list({ limit: 10, page: 1, campaign: campaign.id });
    expect(list).toMatchObject({ object: 'list', data_ref: 'redemptions', total: 5 });
    expect((list as unknown as { redemptions: { id: string }[] }).redemptions.map((r) => r.id)).toEqual([again.id, rolledBack.id, gold.id, paid.id, material.id]);
    const forCard = await sdk.redemptions.getForVoucher(member.code);
    expect(forCard).toMatchObject({ object: 'list', data_ref: 'redemption_entries', total: 5, redeemed_quantity: 1 });

    const twice = await sdk.redemptions.rollback(material.id).catch((error: unknown) => error);
    expect(twice).toMatchObject({ code: 400, key: 'already_rolled_back' });
    const dear = await sdk.loyalties.redeemReward(campaign.id, member.code, { reward: { id: mug.id } }).then(
      () => sdk.loyalties.redeemReward(campaign.id, member.code, { reward: { id: coin.id }, order: { amount: 1_000_000 } }),
    );
    expect(dear).toMatchObject({ order: { total_amount: expect.any(Number) } });
    const exceeded = await sdk.loyalties.redeemReward(campaign.id, member.code, { reward: { id: mug.id } }).catch((error: unknown) => error);
    expect(exceeded).toMatchObject({ code: 400, key: 'loyalty_card_points_exceeded', resource_type: 'redemption' });
    const noOrder = await sdk.loyalties.redeemReward(campaign.id, member.code, { reward: { id: coin.id } }).catch((error: unknown) => error);
    expect(noOrder).toMatchObject({ code: 400, key: 'missing_order' });
    expect(await sdk.redemptions.get('r_000000000000000000').catch((error: unknown) => error)).toMatchObject({ code: 404, key: 'not_found', resource_type: 'redemption' });
  });
});
