import type { ProjectContext } from '../../src/auth/auth.service.js';
import { ApiError } from '../../src/common/errors/api-error.js';
import { BalanceChangeDto } from '../../src/points/balance/dto/balance.dto.js';
import { BalanceService } from '../../src/points/balance/balance.service.js';
import { PointsModule } from '../../src/points/points.module.js';
import { RedeemRewardDto, RollbackBodyDto } from '../../src/redemptions/dto/redemption.dto.js';
import { RedeemService } from '../../src/redemptions/redeem.service.js';
import { RedemptionsModule } from '../../src/redemptions/redemptions.module.js';
import { RollbackService } from '../../src/redemptions/rollback.service.js';
import { CreateRewardAssignmentDto } from '../../src/rewards/dto/reward-assignment.dto.js';
import { CreateRewardDto, UpdateRewardDto } from '../../src/rewards/dto/reward-request.dto.js';
import { RewardAssignmentsService } from '../../src/rewards/reward-assignments.service.js';
import { RewardsService } from '../../src/rewards/rewards.service.js';
import { unique } from '../support/points.js';
import { enrolCustomer, pointsProgram } from '../support/service-points.js';
import { body, useServices } from '../support/services.js';

/** The key of the error a call fails with (`200` when it does not). */
async function outcome(call: Promise<unknown>): Promise<string> {
  return call.then(
    () => '200',
    (error: unknown) => {
      if (error instanceof ApiError) return `${error.status} ${error.key}`;
      throw error;
    },
  );
}

/**
 * RedeemService and RollbackService on PostgreSQL, called as the controllers call them (no HTTP, no worker): which
 * buckets a redemption drains and its rollback refills, what a refusal leaves (nothing), and the card's lock making
 * concurrent calls on one card take turns.
 */
describe('RedeemService and RollbackService on PostgreSQL (no worker, no HTTP)', () => {
  const services = useServices({ imports: [PointsModule, RedemptionsModule] });
  const { db } = services;
  let project: ProjectContext;
  let campaignId: string;
  let programId: string;
  let mug: string;

  const redeem = async (code: string, plain: object) => services.get(RedeemService).redeem(project, null, code, await body(RedeemRewardDto, plain), undefined);
  const rollback = async (id: string) => services.get(RollbackService).rollback(project, id, {}, await body(RollbackBodyDto, {}), undefined);
  const add = async (code: string, plain: object) => services.get(BalanceService).change(project, null, code, await body(BalanceChangeDto, plain), undefined);
  const newCard = async () => (await enrolCustomer(services, project, programId, unique('svc-redeem'))).cards[0];
  const remaining = async (cardId: string) =>
    (await db.query<{ expires_at: string | null; remaining: string }>(`SELECT to_char(expires_at, 'YYYY-MM-DD') AS expires_at, remaining::text FROM loyalty_points_buckets WHERE voucher_id = $1 AND status = 'ACTIVE' ORDER BY expires_at NULLS LAST`, [cardId])).map(
      (b) => `${b.expires_at ?? 'never'}:${b.remaining}`,
    );
  const state = async (projectId: string) => ({
    cards: await db.query('SELECT id, balance, redeemed_points, redeemed_quantity FROM vouchers WHERE project_id = $1 ORDER BY id', [projectId]),
    buckets: await db.query('SELECT id, remaining FROM loyalty_points_buckets WHERE project_id = $1 ORDER BY id', [projectId]),
    ledger: await db.count('SELECT 1 FROM voucher_transactions WHERE project_id = $1', [projectId]),
    redemptions: await db.count('SELECT 1 FROM redemptions WHERE project_id = $1', [projectId]),
    events: await db.count('SELECT 1 FROM events WHERE project_id = $1', [projectId]),
    rewards: await db.query('SELECT id, redeemed FROM rewards WHERE project_id = $1 ORDER BY id', [projectId]),
  });

  beforeAll(async () => {
    project = await services.project();
    ({ campaignId, programId } = await pointsProgram(services, project, []));
    mug = (await services.get(RewardsService).create(project, await body(CreateRewardDto, { name: 'Mug', parameters: { product: { id: 'prod_mug' } }, stock: 50 }))).id;
    await services.get(RewardAssignmentsService).createForReward(project, mug, await body(CreateRewardAssignmentDto, { campaign: campaignId, parameters: { loyalty: { points: 70 } } }));
  });

  it('drains the soonest-expiring buckets first and gives the same points back to the same buckets; the ledger sums hold', async () => {
    const card = await newCard();
    const day = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
    await add(card.code, { points: 40, expiration_type: 'NON_EXPIRING' });
    await add(card.code, { points: 30, expiration_type: 'CUSTOM_DATE', expiration_date: day(100) });
    await add(card.code, { points: 20, expiration_type: 'CUSTOM_DATE', expiration_date: day(10) });
    await add(card.code, { points: 30, expiration_type: 'CUSTOM_DATE', expiration_date: day(50) });
    const before = await remaining(card.id);
    const made = await redeem(card.code, { reward: { id: mug } });
    // 70 points: the 20 expiring in 10 days, the 30 in 50 days, 20 of the 30 in 100 days; never-expiring untouched.
    expect(await remaining(card.id)).toEqual([`${day(10)}:0`, `${day(50)}:0`, `${day(100)}:10`, 'never:40']);
    const [row] = await db.query<{ buckets: { points: number }[] }>('SELECT buckets FROM redemptions WHERE id = $1', [made.id]);
    expect(row.buckets.map((b) => b.points)).toEqual([20, 30, 20]);
    await rollback(made.id);
    expect(await remaining(card.id)).toEqual(before);
    expect(await db.brokenCards()).toEqual([]);
  });

  it('a refused redemption or rollback leaves nothing behind: no row, bucket, counter, unit or event', async () => {
    const card = await newCard();
    await add(card.code, { points: 69 });
    const made = await add(card.code, { points: 1 }).then(() => redeem(card.code, { reward: { id: mug } }));
    const before = await state(project.id);
    expect(await outcome(redeem(card.code, { reward: { id: mug } }))).toBe('400 loyalty_card_points_exceeded');
    expect(await outcome(redeem(card.code, {}))).toBe('400 missing_reward');
    expect(await outcome(redeem(card.code, { reward: { id: 'rew_missing' } }))).toBe('404 not_found');
    await rollback(made.id);
    const after = await state(project.id);
    expect(await outcome(rollback(made.id))).toBe('400 already_rolled_back');
    expect(await state(project.id)).toEqual(after);
    expect(after.redemptions).toBe(before.redemptions + 1);
  });

  it('a CAMPAIGN reward of the card\'s own campaign: the price and the credit on the same card, both undone by the rollback', async () => {
    const own = (await services.get(RewardsService).create(project, await body(CreateRewardDto, { name: 'Own bonus', parameters: { campaign: { id: campaignId, balance: 30 } } }))).id;
    await services.get(RewardAssignmentsService).createForReward(project, own, await body(CreateRewardAssignmentDto, { campaign: campaignId, parameters: { loyalty: { points: 70 } } }));
    const card = await newCard();
    await add(card.code, { points: 100 });
    const made = await redeem(card.code, { reward: { id: own } });
    expect(made).toMatchObject({ amount: 70, voucher: { loyalty_card: { balance: 60 } }, reward: { voucher: { id: card.id, loyalty_card: { balance: 60 } } } });
    await rollback(made.id);
    expect((await db.card(card.code)).balance).toBe(100);
    expect(await db.brokenCards()).toEqual([]);
  });

  it('takes turns on one card: 12 at once on a card that affords 4 give exactly 4; 8 rollbacks of one at once give one refund', async () => {
    const card = await newCard();
    await add(card.code, { points: 300 });
    const outcomes = await Promise.all(Array.from({ length: 12 }, () => outcome(redeem(card.code, { reward: { id: mug } }))));
    expect(outcomes.filter((o) => o === '200')).toHaveLength(4);
    expect(outcomes.filter((o) => o === '400 loyalty_card_points_exceeded')).toHaveLength(8);
    const [first] = await db.query<{ id: string }>(`SELECT id FROM redemptions WHERE voucher_id = $1 AND object = 'redemption' LIMIT 1`, [card.id]);
    const rollbacks = await Promise.all(Array.from({ length: 8 }, () => outcome(rollback(first.id))));
    expect(rollbacks.filter((o) => o === '200')).toHaveLength(1);
    expect(rollbacks.filter((o) => o === '400 already_rolled_back')).toHaveLength(7);
    expect(await db.count(`SELECT 1 FROM voucher_transactions WHERE voucher_id = $1 AND type = 'POINTS_REFUND'`, [card.id])).toBe(1);
    expect((await db.card(card.code)).balance).toBe(300 - 3 * 70);
    expect(await db.brokenCards()).toEqual([]);
  });
  it('a reward without a stock: its row left alone, its redeemed counted from its redemptions; a stock set later starts from that count', async () => {
    const rewards = services.get(RewardsService);
    const free = (await rewards.create(project, await body(CreateRewardDto, { name: 'Sticker', parameters: { product: { id: 'prod_sticker' } } }))).id;
    await services.get(RewardAssignmentsService).createForReward(project, free, await body(CreateRewardAssignmentDto, { campaign: campaignId, parameters: { loyalty: { points: 10 } } }));
    const card = await newCard();
    await add(card.code, { points: 100, expiration_type: 'NON_EXPIRING' });
    const made = await Promise.all(Array.from({ length: 6 }, () => redeem(card.code, { reward: { id: free } })));
    await rollback(made[0].id);
    const column = async () => (await db.query<{ redeemed: number }>('SELECT redeemed FROM rewards WHERE id = $1', [free]))[0].redeemed;
    expect(await column()).toBe(0);
    expect(await rewards.get(project, free)).toMatchObject({ stock: null, redeemed: 5 });
    // A stock below the redemptions made is refused; one that fits starts from their count, and then holds.
    expect(await outcome(rewards.update(project, free, await body(UpdateRewardDto, { stock: 4 })))).toBe('400 invalid_payload');
    expect(await rewards.update(project, free, await body(UpdateRewardDto, { stock: 6 }))).toMatchObject({ stock: 6, redeemed: 5 });
    expect(await column()).toBe(5);
    expect(await Promise.all(Array.from({ length: 3 }, () => outcome(redeem(card.code, { reward: { id: free } }))))).toEqual(expect.arrayContaining(['200', '400 quantity_exceeded', '400 quantity_exceeded']));
    expect(await rewards.get(project, free)).toMatchObject({ stock: 6, redeemed: 6 });
    // Without a stock again: the count of the redemptions, a rollback included.
    await rewards.update(project, free, await body(UpdateRewardDto, { stock: null }));
    await rollback(made[1].id);
    expect(await rewards.get(project, free)).toMatchObject({ stock: null, redeemed: 5 });
  });
});
