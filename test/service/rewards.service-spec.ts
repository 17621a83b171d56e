import type { ProjectContext } from '../../src/auth/auth.service.js';
import { CampaignsService } from '../../src/campaigns/campaigns.service.js';
import { ApiError } from '../../src/common/errors/api-error.js';
import { TransactionRunner } from '../../src/database/transaction-runner.js';
import { CreateCampaignAssignmentDto, CreateRewardAssignmentDto, MemberRewardsQueryDto, UpdateRewardAssignmentDto } from '../../src/rewards/dto/reward-assignment.dto.js';
import { CreateRewardDto, UpdateRewardDto } from '../../src/rewards/dto/reward-request.dto.js';
import { RewardAssignmentsService } from '../../src/rewards/reward-assignments.service.js';
import { RewardRepository } from '../../src/rewards/reward.repository.js';
import { RewardsModule } from '../../src/rewards/rewards.module.js';
import { RewardsService } from '../../src/rewards/rewards.service.js';
import { waitFor } from '../support/harness.js';
import { PointsDb, unique } from '../support/points.js';
import { enrolCustomer, pointsProgram } from '../support/service-points.js';
import { body, useServices } from '../support/services.js';

/** The error a call fails with, as the client sees it (status, key, details and the rest of the body). */
async function failure(call: Promise<unknown>): Promise<Record<string, unknown>> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error.toBody(undefined) as unknown as Record<string, unknown>;
}

describe('RewardsService and RewardAssignmentsService on PostgreSQL (no worker, no HTTP)', () => {
  const services = useServices({ imports: [RewardsModule] });
  const { db } = services;
  const rewards = () => services.get(RewardsService);
  const assignments = () => services.get(RewardAssignmentsService);
  const create = async (project: ProjectContext, plain: object) => rewards().create(project, await body(CreateRewardDto, plain));
  const mug = { name: 'Mug', parameters: { product: { id: 'prod_mug' } } };

  describe('the catalogue', () => {
    let project: ProjectContext;
    let campaignId: string;
    beforeAll(async () => {
      project = await services.project();
      ({ campaignId } = await pointsProgram(services, project, []));
    });

    it('infers the type from parameters and answers each kind as Voucherify does: product as given, points_ratio 1 by default, the campaign\'s id and type', async () => {
      const material = await create(project, { ...mug, parameters: { product: { id: 'prod_mug', sku_id: 'sku_blue' } }, stock: 3, attributes: { image_url: 'https://example.com/mug.png', description: 'Blue' }, metadata: { shelf: 'B2' } });
      expect(material).toEqual({
        id: expect.stringMatching(/^rew_[0-9A-Za-z]{24}$/),
        name: 'Mug',
        type: 'MATERIAL',
        parameters: { product: { id: 'prod_mug', sku_id: 'sku_blue' } },
        stock: 3,
        redeemed: 0,
        attributes: { image_url: 'https://example.com/mug.png', description: 'Blue' },
        created_at: expect.any(String),
        updated_at: null,
        metadata: { shelf: 'B2' },
        object: 'reward',
      });
      expect(await create(project, { name: 'Mug, any', parameters: { product: { id: 'prod_mug' } } })).toMatchObject({ parameters: { product: { id: 'prod_mug', sku_id: null } }, stock: null, attributes: {}, metadata: {} });
      // Voucherify's create schema types the ratios as strings; the SDK sends numbers.
      expect(await create(project, { name: '1 point = 0.01', type: 'COIN', parameters: { coin: { exchange_ratio: '0.01' } } })).toMatchObject({ type: 'COIN', parameters: { coin: { exchange_ratio: 0.01, points_ratio: 1 } }, stock: null });
      const byName = await services.get(CampaignsService).get(project, campaignId);
      expect(await create(project, { name: '100 points', parameters: { campaign: { id: byName.name, balance: 100 } } })).toMatchObject({
        type: 'CAMPAIGN',
        parameters: { campaign: { id: campaignId, balance: 100, type: 'LOYALTY_PROGRAM' } },
      });
    });

    it('refuses what is not a reward, naming the field, and stores nothing', async () => {
      const before = await db.count('SELECT 1 FROM rewards WHERE project_id = $1', [project.id]);
      const refused = async (plain: object) => failure(create(project, plain));
      expect(await refused({ name: 'x', parameters: {} })).toMatchObject({ code: 400, key: 'invalid_payload', details: 'parameters must hold exactly one of campaign, coin, product' });
      expect(await refused({ name: 'x', parameters: { coin: { exchange_ratio: 1 }, product: { id: 'p' } } })).toMatchObject({ details: 'parameters must hold exactly one of campaign, coin, product (got coin and product)' });
      expect(await refused({ name: 'x', type: 'COIN', parameters: { product: { id: 'p' } } })).toMatchObject({ key: 'invalid_payload', details: 'type COIN contradicts parameters.product, which makes a MATERIAL reward' });
      expect(await refused({ name: 'x', parameters: { coin: { exchange_ratio: 0 } } })).toMatchObject({ details: expect.stringContaining('parameters.coin.exchange_ratio must be a positive number') });
      expect(await refused({ name: 'x', parameters: { coin: { exchange_ratio: 1, points_ratio: 0 } } })).toMatchObject({ details: expect.stringContaining('parameters.coin.points_ratio must not be less than 1') });
      expect(await refused({ name: 'x', parameters: { coin: { exchange_ratio: 1 } }, stock: 5 })).toMatchObject({ details: 'stock is for MATERIAL rewards only; a COIN reward has no stock' });
      expect(await refused({ name: 'x', parameters: { coin: { exchange_ratio: 1 } }, attributes: { description: 'd' } })).toMatchObject({ details: 'attributes are for MATERIAL rewards only, not for a COIN reward' });
      expect(await refused({ ...mug, stock: -1 })).toMatchObject({ details: 'stock must not be less than 0' });
      expect(await refused({ ...mug, stock: 1.5 })).toMatchObject({ details: expect.stringContaining('stock must be an integer') });
      expect(await refused({ name: 'x', parameters: { product: {} } })).toMatchObject({ details: expect.stringContaining('parameters.product.id is required') });
      expect(await refused({ parameters: { product: { id: 'p' } } })).toMatchObject({ details: expect.stringContaining('name is required') });
      // The SDK's type calls the SKU `sku`; the API's name is `sku_id`, and a SKU is never dropped silently.
      expect(await refused({ name: 'x', parameters: { product: { id: 'p', sku: 's' } } })).toMatchObject({ details: 'property parameters.product.sku is not allowed' });
      expect(await refused({ name: 'x', parameters: { campaign: { id: campaignId, balance: 1, type: 'GIFT_VOUCHERS' } } })).toMatchObject({ details: expect.stringContaining('must be LOYALTY_PROGRAM: DISCOUNT_COUPONS and GIFT_VOUCHERS rewards need') });
      expect(await refused({ name: 'x', parameters: { campaign: { id: campaignId, balance: 0 } } })).toEqual({
        code: 400,
        key: 'invalid_balance',
        message: "Property 'parameters.campaign.balance' is invalid",
        details: "Property 'parameters.campaign.balance' must be greater than zero for campaign type: LOYALTY_PROGRAM",
      });
      expect(await refused({ name: 'x', parameters: { campaign: { id: 'camp_nope', balance: 5 } } })).toMatchObject({ code: 404, key: 'not_found', resource_type: 'campaign', resource_id: 'camp_nope' });
      const other = await services.project('Another project');
      expect(await failure(create(other, { name: 'x', parameters: { campaign: { id: campaignId, balance: 5 } } }))).toMatchObject({ code: 404, resource_type: 'campaign' });
      expect(await db.count('SELECT 1 FROM rewards WHERE project_id = $1', [project.id])).toBe(before);
    });

    it('updates the fields sent, merging the parameters of the reward\'s own kind; a type does not change; stock not below redeemed', async () => {
      const coin = await create(project, { name: 'Coin', parameters: { coin: { exchange_ratio: 20, points_ratio: 100 } } });
      const update = async (id: string, plain: object) => rewards().update(project, id, await body(UpdateRewardDto, plain));
      expect(await update(coin.id, { parameters: { coin: { exchange_ratio: 25 } } })).toMatchObject({ parameters: { coin: { exchange_ratio: 25, points_ratio: 100 } }, updated_at: expect.any(String), name: 'Coin' });
      expect(await failure(update(coin.id, { parameters: { product: { id: 'p' } } }))).toMatchObject({ details: "parameters.product is not for a COIN reward (its parameters are coin): a reward's type does not change" });
      expect(await failure(update(coin.id, { type: 'MATERIAL' }))).toMatchObject({ details: "type MATERIAL is not the reward's type COIN: a reward's type does not change" });

      const material = await create(project, { ...mug, stock: 5 });
      await db.query('UPDATE rewards SET redeemed = 4 WHERE id = $1', [material.id]);
      expect(await failure(update(material.id, { stock: 3 }))).toMatchObject({ code: 400, key: 'invalid_payload', details: 'stock 3 is below the 4 units already redeemed' });
      expect(await update(material.id, { stock: 4, parameters: { product: { sku_id: 'sku_red' } }, metadata: { a: 1 } })).toMatchObject({ stock: 4, redeemed: 4, parameters: { product: { id: 'prod_mug', sku_id: 'sku_red' } }, metadata: { a: 1 } });
      // Without a stock, `redeemed` is its SUCCEEDED redemptions counted (none: the 4 above were set by hand).
      expect(await update(material.id, { stock: null })).toMatchObject({ stock: null, redeemed: 0 });

      const campaign = await create(project, { name: 'Points', parameters: { campaign: { id: campaignId, balance: 10 } } });
      expect(await failure(update(campaign.id, { parameters: { campaign: { balance: -1 } } }))).toMatchObject({ key: 'invalid_balance' });
      expect(await update(campaign.id, { parameters: { campaign: { balance: 20 } } })).toMatchObject({ parameters: { campaign: { id: campaignId, balance: 20, type: 'LOYALTY_PROGRAM' } } });
      expect(await failure(update('rew_nope', { name: 'x' }))).toMatchObject({ code: 404, resource_type: 'reward', details: 'Cannot find reward with id rew_nope' });
    });

    it('deletes a reward no live campaign offers; an offered one is resource_in_use, naming the assignments; those of campaigns in the bin go with it', async () => {
      const reward = await create(project, mug);
      const second = await pointsProgram(services, project, []);
      const [first] = await assignments().createInCampaign(project, campaignId, [await body(CreateCampaignAssignmentDto, { reward: reward.id, parameters: { loyalty: { points: 10 } } })]);
      const other = await assignments().createForReward(project, reward.id, await body(CreateRewardAssignmentDto, { campaign: second.campaignId, parameters: { loyalty: { points: 20 } } }));
      expect(await failure(rewards().delete(project, reward.id))).toEqual({
        code: 400,
        key: 'resource_in_use',
        message: 'Resource in use',
        details: `Resource reward with id ${reward.id} is in use by reward_assignments with ids [${first.id}, ${other.id}]`,
        related_object_ids: [first.id, other.id],
        related_object_type: 'reward_assignment',
        related_object_total: 2,
      });
      await assignments().delete(project, { campaign: campaignId }, first.id);
      await services.get(CampaignsService).delete(project, second.campaignId, false);
      await rewards().delete(project, reward.id);
      expect(await db.count('SELECT 1 FROM rewards WHERE id = $1', [reward.id])).toBe(0);
      expect(await db.count('SELECT 1 FROM reward_assignments WHERE reward_id = $1', [reward.id])).toBe(0);
      expect(await failure(rewards().delete(project, reward.id))).toMatchObject({ code: 404, resource_type: 'reward' });

      // A campaign's permanent deletion ends with its row (CampaignDeletionRepository.finish): its assignments go with it.
      const kept = await create(project, mug);
      const third = await pointsProgram(services, project, []);
      await assignments().createForReward(project, kept.id, await body(CreateRewardAssignmentDto, { campaign: third.campaignId, parameters: { loyalty: { points: 5 } } }));
      await db.query('DELETE FROM campaigns WHERE id = $1', [third.campaignId]);
      expect(await db.count('SELECT 1 FROM reward_assignments WHERE reward_id = $1', [kept.id])).toBe(0);
      await rewards().delete(project, kept.id);
    });
  });

  describe('assignments', () => {
    let project: ProjectContext;
    let campaignId: string;
    beforeAll(async () => {
      project = await services.project();
      ({ campaignId } = await pointsProgram(services, project, []));
    });
    const item = (plain: object) => body(CreateCampaignAssignmentDto, plain);

    it('prices CAMPAIGN and MATERIAL rewards in points (missing_param without), COIN rewards not at all; all of an array or none', async () => {
      const material = await create(project, mug);
      const coin = await create(project, { name: 'Coin', parameters: { coin: { exchange_ratio: 1 } } });
      const none = await failure(assignments().createInCampaign(project, campaignId, [await item({ reward: material.id })]));
      expect(none).toEqual({ code: 400, key: 'missing_param', message: 'Missing required parameter', details: "Parameter 'parameters.loyalty' is required" });
      expect(await failure(assignments().createInCampaign(project, campaignId, [await item({ reward: material.id, parameters: { loyalty: {} } })]))).toMatchObject({ key: 'missing_param', details: "Parameter 'parameters.loyalty.points' is required" });
      expect(await failure(assignments().createInCampaign(project, campaignId, [await item({ reward: coin.id, parameters: { loyalty: { points: 5 } } })]))).toMatchObject({ key: 'invalid_payload', details: expect.stringContaining('a COIN reward has no price') });
      // The second item fails: the first is not kept either.
      expect(await failure(assignments().createInCampaign(project, campaignId, [await item({ reward: coin.id }), await item({ reward: 'rew_nope', parameters: { loyalty: { points: 1 } } })]))).toMatchObject({ code: 404, resource_type: 'reward', resource_id: 'rew_nope' });
      expect(await failure(assignments().createInCampaign(project, campaignId, [await item({ reward: coin.id }), await item({ reward: coin.id })]))).toMatchObject({ key: 'invalid_payload', details: `[1] reward ${coin.id} is already in [0]: a reward is offered once per campaign` });
      expect(await db.count('SELECT 1 FROM reward_assignments WHERE campaign_id = $1', [campaignId])).toBe(0);

      const made = await assignments().createInCampaign(project, campaignId, [await item({ reward: material.id, parameters: { loyalty: { points: 50 } } }), await item({ reward: coin.id })]);
      expect(made).toEqual([
        { id: expect.stringMatching(/^rewa_[0-9A-Za-z]{24}$/), reward_id: material.id, related_object_id: campaignId, related_object_type: 'campaign', parameters: { loyalty: { points: 50 } }, created_at: expect.any(String), updated_at: null, object: 'reward_assignment' },
        { id: expect.stringMatching(/^rewa_/), reward_id: coin.id, related_object_id: campaignId, related_object_type: 'campaign', created_at: expect.any(String), updated_at: null, object: 'reward_assignment' },
      ]);
      expect(await failure(assignments().createForReward(project, material.id, await body(CreateRewardAssignmentDto, { campaign: campaignId, parameters: { loyalty: { points: 1 } } })))).toEqual({
        code: 409,
        key: 'duplicate_found',
        message: 'Duplicated resource found',
        details: `Duplicated reward_assignment exists with id ${made[0].id}`,
        resource_id: made[0].id,
        resource_type: 'reward_assignment',
      });
      expect(await failure(assignments().createForReward(project, material.id, await body(CreateRewardAssignmentDto, { parameters: { loyalty: { points: 1 } } })))).toEqual({
        code: 404,
        key: 'not_found',
        message: 'Resource not found',
        details: 'Cannot find campaign with id null',
        resource_type: 'campaign',
      });

      const update = async (scope: { campaign: string } | { reward: string }, id: string, plain: object) => assignments().update(project, scope, id, await body(UpdateRewardAssignmentDto, plain));
      expect(await update({ reward: material.id }, made[0].id, { parameters: { loyalty: { points: 70 } } })).toMatchObject({ parameters: { loyalty: { points: 70 } }, updated_at: expect.any(String) });
      expect(await update({ campaign: campaignId }, made[0].id, {})).toMatchObject({ parameters: { loyalty: { points: 70 } } });
      expect(await failure(update({ campaign: campaignId }, made[1].id, { parameters: { loyalty: { points: 70 } } }))).toMatchObject({ key: 'invalid_payload' });
      // An assignment is found only through its own campaign or reward.
      expect(await failure(assignments().get(project, { reward: coin.id }, made[0].id))).toMatchObject({ code: 404, resource_type: 'reward_assignment', resource_id: made[0].id });
      expect(await assignments().rewardOf(project, campaignId, made[0].id)).toMatchObject({ id: material.id, object: 'reward' });
      expect(await assignments().list(project, { campaign: campaignId }, { limit: 1, page: 2 })).toMatchObject({ object: 'list', data_ref: 'data', total: 2, data: [{ id: made[1].id }] });
      expect(await rewards().list(project, { assignment_id: made[1].id })).toMatchObject({ total: 1, data: [{ id: coin.id }] });
    });

    it('shows a card the rewards of its campaign; affordable_only keeps the prices within its balance, COIN rewards by points_ratio, MATERIAL ones with a unit left', async () => {
      const own = await services.project();
      const program = await pointsProgram(services, own, [], 100);
      const { cards } = await enrolCustomer(services, own, program.programId, unique('member'));
      const code = cards[0].code;
      const reward = async (name: string, parameters: object, stock?: number) => (await create(own, { name, parameters, ...(stock !== undefined ? { stock } : {}) })).id;
      const cheap = await reward('Cheap', { product: { id: 'p1' } });
      const dear = await reward('Dear', { product: { id: 'p2' } });
      const gone = await reward('Gone', { product: { id: 'p3' } }, 1);
      const coinOk = await reward('Coin 100', { coin: { exchange_ratio: 1, points_ratio: 100 } });
      const coinDear = await reward('Coin 101', { coin: { exchange_ratio: 1, points_ratio: 101 } });
      await db.query('UPDATE rewards SET redeemed = 1 WHERE id = $1', [gone]);
      await assignments().createInCampaign(own, program.campaignId, [
        await item({ reward: cheap, parameters: { loyalty: { points: 100 } } }),
        await item({ reward: dear, parameters: { loyalty: { points: 101 } } }),
        await item({ reward: gone, parameters: { loyalty: { points: 1 } } }),
        await item({ reward: coinOk }),
        await item({ reward: coinDear }),
      ]);
      const list = async (query: object) => assignments().forMember(own, code, await body(MemberRewardsQueryDto, query));
      const all = await list({});
      expect(all.total).toBe(5);
      expect(all.data.map((item) => item.reward.name)).toEqual(['Cheap', 'Dear', 'Gone', 'Coin 100', 'Coin 101']);
      expect(all.data[0]).toEqual({ reward: expect.objectContaining({ id: cheap, object: 'reward' }), assignment: expect.objectContaining({ reward_id: cheap, parameters: { loyalty: { points: 100 } } }), object: 'loyalty_reward' });
      const affordable = await list({ affordable_only: true });
      expect({ total: affordable.total, names: affordable.data.map((item) => item.reward.name) }).toEqual({ total: 2, names: ['Cheap', 'Coin 100'] });
      expect((await list({ affordable_only: true, limit: 1, page: 2 })).data.map((item) => item.reward.name)).toEqual(['Coin 100']);
      // Another project's key: the card is not there.
      expect(await failure(assignments().forMember(project, code, {}))).toMatchObject({ code: 404, resource_type: 'voucher', resource_id: code });
    });
  });

  it('takes stock units atomically: concurrent redemptions of k units left take exactly k, and a rollback gives one back', async () => {
    const project = await services.project();
    const reward = await create(project, { ...mug, stock: 5 });
    const runner = services.get(TransactionRunner);
    const repository = services.get(RewardRepository);
    for (let round = 0; round < 3; round += 1) {
      await db.query('UPDATE rewards SET redeemed = 2 WHERE id = $1', [reward.id]);
      const taken = await Promise.all(Array.from({ length: 12 }, () => runner.run((tx) => repository.takeUnit(tx, project.id, reward.id))));
      expect(taken.filter((unit) => unit !== null).map((unit) => unit?.redeemed).sort()).toEqual([3, 4, 5]);
      expect((await repository.find(project.id, reward.id))?.redeemed).toBe(5);
    }
    expect(await runner.run((tx) => repository.returnUnit(tx, project.id, reward.id))).toBe(true);
    expect(await runner.run((tx) => repository.takeUnit(tx, project.id, reward.id))).toEqual({ redeemed: 5, stock: 5 });
    // Another project cannot take a unit of it.
    expect(await runner.run(async (tx) => repository.takeUnit(tx, (await services.project()).id, reward.id))).toBeNull();
    // The CHECK holds for every writer.
    await expect(db.query('UPDATE rewards SET redeemed = 6 WHERE id = $1', [reward.id])).rejects.toThrow(/chk_rewards_stock/);
  });

  it('takes units for a batch atomically: concurrent batches of units take exactly what the stock has left, and give back what they did not use', async () => {
    const project = await services.project();
    const reward = await create(project, { ...mug, stock: 7 });
    const runner = services.get(TransactionRunner);
    const repository = services.get(RewardRepository);
    for (let round = 0; round < 3; round += 1) {
      await db.query('UPDATE rewards SET redeemed = 1 WHERE id = $1', [reward.id]);
      const taken = await Promise.all(Array.from({ length: 8 }, (_, i) => runner.run(async (tx) => (await repository.takeUnits(tx, project.id, reward.id, 1 + (i % 3), false)).left)));
      expect(taken.reduce((sum, n) => sum + n, 0)).toBe(6);
      expect(taken.every((n, i) => n >= 0 && n <= 1 + (i % 3))).toBe(true);
      expect((await repository.find(project.id, reward.id))?.redeemed).toBe(7);
    }
    await runner.run((tx) => repository.returnUnits(tx, project.id, reward.id, 3));
    expect((await repository.find(project.id, reward.id))?.redeemed).toBe(4);
    // Read without a stock: every unit given while it has none; a stock set since is taken from.
    const unlimited = await create(project, { ...mug, name: 'Unlimited mug' });
    expect(await runner.run((tx) => repository.takeUnits(tx, project.id, unlimited.id, 5, true))).toEqual({ left: 5, counted: false });
    await db.query('UPDATE rewards SET stock = 2, redeemed = 0 WHERE id = $1', [unlimited.id]);
    expect(await runner.run((tx) => repository.takeUnits(tx, project.id, unlimited.id, 5, true))).toEqual({ left: 2, counted: true });
    // Another project takes nothing of it.
    expect(await runner.run(async (tx) => repository.takeUnits(tx, (await services.project()).id, reward.id, 2, false))).toEqual({ left: 0, counted: true });
    expect(await runner.run(async (tx) => repository.takeUnits(tx, (await services.project()).id, unlimited.id, 2, true))).toEqual({ left: 0, counted: false });
  });

  it('a batch taking units does not wait for redemptions that hold the reward FOR KEY SHARE (two batches that both read it without a stock, set since, deadlocked)', async () => {
    const project = await services.project();
    const reward = await create(project, { ...mug, name: 'Stock set since' });
    await db.query('UPDATE rewards SET stock = 3 WHERE id = $1', [reward.id]);
    const runner = services.get(TransactionRunner);
    const repository = services.get(RewardRepository);
    // Another transaction that read the reward without a stock holds its row as such redemptions do.
    const holder = new PointsDb();
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM rewards WHERE id = $1 FOR KEY SHARE', [reward.id]);
      let taken: { left: number; counted: boolean } | undefined;
      const take = runner.run((tx) => repository.takeUnits(tx, project.id, reward.id, 2, true)).then((result) => (taken = result));
      // Done while the hold is still held (before this fix it waited for it: with two holders, each for the other).
      expect(await waitFor(async () => taken, { timeoutMs: 5_000, intervalMs: 20 })).toEqual({ left: 2, counted: true });
      await take;
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
    }
    expect((await repository.find(project.id, reward.id))?.redeemed).toBe(2);
  });
});
