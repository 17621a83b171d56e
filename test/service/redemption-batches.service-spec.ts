import type { ProjectContext } from '../../src/auth/auth.service.js';
import type { Collector } from '../../src/common/batching/collector.js';
import { ApiError } from '../../src/common/errors/api-error.js';
import { Metrics } from '../../src/metrics/metrics.js';
import { BalanceChangeDto } from '../../src/points/balance/dto/balance.dto.js';
import { BalanceService } from '../../src/points/balance/balance.service.js';
import { PointsModule } from '../../src/points/points.module.js';
import { RedeemRewardDto } from '../../src/redemptions/dto/redemption.dto.js';
import { RedeemService } from '../../src/redemptions/redeem.service.js';
import { RedemptionBatches } from '../../src/redemptions/redemption-batches.service.js';
import { RedemptionsModule } from '../../src/redemptions/redemptions.module.js';
import { CreateRewardAssignmentDto } from '../../src/rewards/dto/reward-assignment.dto.js';
import { CreateRewardDto } from '../../src/rewards/dto/reward-request.dto.js';
import { RewardAssignmentsService } from '../../src/rewards/reward-assignments.service.js';
import { RewardsService } from '../../src/rewards/rewards.service.js';
import { waitFor } from '../support/harness.js';
import { histogramTotals } from '../support/prometheus.js';
import { PointsDb, unique } from '../support/points.js';
import { enrolCustomer, pointsProgram } from '../support/service-points.js';
import { body, useServices } from '../support/services.js';

/** What a call answers: `200` and the balance its answer shows, or the status and key of its error. */
async function outcome(call: Promise<{ voucher: unknown }>): Promise<string> {
  return call.then(
    (made) => `200 ${(made.voucher as { loyalty_card: { balance: number } }).loyalty_card.balance}`,
    (error: unknown) => {
      if (error instanceof ApiError) return `${error.status} ${error.key}`;
      throw error;
    },
  );
}

/**
 * MATERIAL redemptions by the batch: concurrent redemptions of a project share one transaction, each made or
 * refused exactly as if they had come one after the other. The test holds the card's lock from a connection of
 * its own, so the two first redemptions' transactions wait on it and the others queue in the collector (bounded
 * polls on the lock waits and the collector's count, not bets on timing); then it lets go.
 */
describe('MATERIAL redemptions in batches (RedeemService on PostgreSQL)', () => {
  const services = useServices({ imports: [PointsModule, RedemptionsModule] });
  const { db } = services;
  let project: ProjectContext;
  let campaignId: string;
  let programId: string;
  const collector = () => (services.get(RedemptionBatches) as unknown as { collector: Collector<unknown, unknown> }).collector;

  const redeem = async (code: string, reward: string, key?: string) => services.get(RedeemService).redeem(project, null, code, await body(RedeemRewardDto, { reward: { id: reward } }), key);
  const newCard = async (points: number) => {
    const card = (await enrolCustomer(services, project, programId, unique('batch-redeem'))).cards[0];
    await services.get(BalanceService).change(project, null, card.code, await body(BalanceChangeDto, { points }), undefined);
    return card;
  };
  const reward = async (name: string, price: number, stock?: number) => {
    const made = await services.get(RewardsService).create(project, await body(CreateRewardDto, { name, parameters: { product: { id: `prod_${name}` } }, ...(stock ? { stock } : {}) }));
    await services.get(RewardAssignmentsService).createForReward(project, made.id, await body(CreateRewardAssignmentDto, { campaign: campaignId, parameters: { loyalty: { points: price } } }));
    return made.id;
  };
  /** With the card locked elsewhere: `first` (each alone in a batch) until both wait for the card, then `send` until all of it waits in the collector; then the card is released. */
  async function behindCardLock(cardId: string, first: () => Promise<string>[], send: () => Promise<string>[]): Promise<{ first: string[]; sent: string[] }> {
    const holder = new PointsDb();
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM vouchers WHERE id = $1 FOR NO KEY UPDATE', [cardId]);
      const firstDone = Promise.all(first());
      await waitFor(async () => ((await db.count("SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")) >= 2 ? true : undefined), { timeoutMs: 30_000 });
      const sent = send();
      await waitFor(async () => (collector().waiting >= sent.length ? true : undefined), { timeoutMs: 30_000 });
      await holder.query('COMMIT');
      return { first: await firstDone, sent: await Promise.all(sent) };
    } finally {
      await holder.end();
    }
  }
  /** The batch histogram's observations and their sum (loyalty_redemption_batch_size). */
  const batchHistogram = () => histogramTotals(services.get(Metrics).redemptionBatches, 'loyalty_redemption_batch_size');
  /** How many transactions wrote the card's redemptions (each row's xmin is the transaction that wrote it). */
  const transactions = async (cardId: string) => (await db.query<{ n: number }>('SELECT count(DISTINCT xmin::text)::int AS n FROM redemptions WHERE voucher_id = $1', [cardId]))[0].n;

  const counters = async (cardId: string) =>
    (await db.query<{ balance: number; redeemed_points: number; redeemed_quantity: number }>('SELECT balance::int, redeemed_points::int, redeemed_quantity FROM vouchers WHERE id = $1', [cardId]))[0];

  beforeAll(async () => {
    project = await services.project();
    ({ campaignId, programId } = await pointsProgram(services, project, []));
  });

  it('8 redemptions of one card in one batch: made or refused in their order of arrival, each answer and event showing the card right after it', async () => {
    const mug = await reward('mug', 50);
    const pin = await reward('pin', 10, 3);
    const card = await newCard(300);
    const histogram = await batchHistogram();
    const { first, sent } = await behindCardLock(
      card.id,
      () => [outcome(redeem(card.code, mug)), outcome(redeem(card.code, mug))],
      () => [mug, pin, mug, pin, mug, pin, pin, mug].map((id) => outcome(redeem(card.code, id))),
    );
    expect(first.sort()).toEqual(['200 200', '200 250']);
    // 200 points left for mugs at 50 and pins at 10 (3 in stock), in the order they reached the collector: six
    // made, the fourth pin out of stock, the fourth mug past the 20 points left.
    expect(sent.filter((o) => o.startsWith('400')).sort()).toEqual(['400 loyalty_card_points_exceeded', '400 quantity_exceeded']);
    const balances = [...first, ...sent].filter((o) => o.startsWith('200')).map((o) => Number(o.slice(4))).sort((a, b) => b - a);
    expect(balances).toHaveLength(8);
    expect(balances.at(-1)).toBe(20);
    expect(await transactions(card.id)).toBe(3);
    // Three batches (the two first alone, then the eight), as the API's metric counts them.
    expect(await batchHistogram()).toEqual({ count: histogram.count + 3, sum: histogram.sum + 10 });
    expect(await counters(card.id)).toEqual({ balance: 20, redeemed_points: 280, redeemed_quantity: 8 });
    expect((await db.query<{ redeemed: number }>('SELECT redeemed FROM rewards WHERE id = $1', [pin]))[0].redeemed).toBe(3);
    // Each redemption's answer, ledger row and event show the balance right after it: eight different balances.
    const ledger = await db.query<{ balance: number }>("SELECT (details->'balance'->>'balance')::int AS balance FROM voucher_transactions WHERE voucher_id = $1 AND type = 'POINTS_REDEMPTION' ORDER BY 1 DESC", [card.id]);
    expect(ledger.map((row) => row.balance)).toEqual(balances);
    const events = await db.query<{ type: string; balance: number }>(
      "SELECT type, (data->'voucher'->'loyalty_card'->>'balance')::int AS balance FROM events WHERE project_id = $1 AND data->'voucher'->>'id' = $2 AND type LIKE '%redemption%'",
      [project.id, card.id],
    );
    expect(events.filter((e) => e.type === 'redemption.succeeded').map((e) => e.balance).sort((a, b) => b - a)).toEqual(balances);
    expect(events).toHaveLength(24);
    expect(await db.brokenCards()).toEqual([]);
  });

  it('units a batch took for redemptions refused for their points go back to the stock; a keyed redemption of a batch replays its answer', async () => {
    const badge = await reward('badge', 10, 5);
    const card = await newCard(25);
    const key = unique('batch-key');
    const { first, sent } = await behindCardLock(
      card.id,
      () => [outcome(redeem(card.code, badge)), outcome(redeem(card.code, badge))],
      () => [outcome(redeem(card.code, badge, key)), outcome(redeem(card.code, badge))],
    );
    expect(first.sort()).toEqual(['200 15', '200 5']);
    expect(sent).toEqual(['400 loyalty_card_points_exceeded', '400 loyalty_card_points_exceeded']);
    expect((await db.query<{ redeemed: number }>('SELECT redeemed FROM rewards WHERE id = $1', [badge]))[0].redeemed).toBe(2);
    // The keyed one's refusal is its answer again; a new key on a card with points is made once and replayed.
    expect(await outcome(redeem(card.code, badge, key))).toBe('400 loyalty_card_points_exceeded');
    await services.get(BalanceService).change(project, null, card.code, await body(BalanceChangeDto, { points: 20 }), undefined);
    const again = unique('batch-key');
    const answers = await Promise.all([redeem(card.code, badge, again), redeem(card.code, badge)]);
    expect((await redeem(card.code, badge, again)).id).toBe(answers[0].id);
    expect(await counters(card.id)).toMatchObject({ balance: 5, redeemed_quantity: 4 });
    expect((await db.query<{ redeemed: number }>('SELECT redeemed FROM rewards WHERE id = $1', [badge]))[0].redeemed).toBe(4);
    expect(await db.brokenCards()).toEqual([]);
  });

  it('a batch\'s checks: each request is refused as it would be alone, a COIN reward goes on alone, and the others are made', async () => {
    const cup = await reward('cup', 20);
    const plate = (await services.get(RewardsService).create(project, await body(CreateRewardDto, { name: 'plate', parameters: { product: { id: 'prod_plate' } } }))).id;
    const coin = (await services.get(RewardsService).create(project, await body(CreateRewardDto, { name: 'coin', type: 'COIN', parameters: { coin: { exchange_ratio: 1, points_ratio: 10 } } }))).id;
    await services.get(RewardAssignmentsService).createForReward(project, coin, await body(CreateRewardAssignmentDto, { campaign: campaignId }));
    const card = await newCard(100);
    const other = await newCard(10);
    const plain = (code: string, dto: object) => outcome(services.get(RedeemService).redeem(project, null, code, Object.assign(new RedeemRewardDto(), dto), undefined));
    const { first, sent } = await behindCardLock(
      card.id,
      () => [outcome(redeem(card.code, cup)), outcome(redeem(card.code, cup))],
      () => [
        outcome(redeem('NO-SUCH-CODE', cup)),
        plain(card.code, {}),
        outcome(redeem(card.code, 'rew_missing')),
        outcome(redeem(card.code, plate)),
        outcome(redeem(card.code, coin)),
        plain(card.code, { reward: { id: coin, points: 10 }, order: { amount: 2000 } }),
        outcome(redeem(other.code, cup)),
        outcome(redeem(card.code, cup)),
      ],
    );
    expect(first.sort()).toEqual(['200 60', '200 80']);
    expect(sent.slice(0, 5)).toEqual(['404 not_found', '400 missing_reward', '404 not_found', '404 not_found', '400 missing_order']);
    // The COIN redemption (alone, 10 points) and the cup (in the batch, 20) share the card's 60 points in either order.
    expect([...sent.slice(5, 6), ...sent.slice(7)].map((o) => o.slice(0, 3))).toEqual(['200', '200']);
    expect(sent[6]).toBe('400 loyalty_card_points_exceeded');
    expect(await counters(card.id)).toMatchObject({ balance: 30, redeemed_quantity: 4 });
    expect(await db.brokenCards()).toEqual([]);
  });
});
