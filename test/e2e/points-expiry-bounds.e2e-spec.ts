import { cliOk } from '../support/cli.js';
import { useStack } from '../support/fixture.js';
import { testConfig, waitFor } from '../support/harness.js';
import { PointsDb, addDueBuckets, enrol, pointsCampaign, projectViolations, unique } from '../support/points.js';

const SWEEP_MS = 100;
/**
 * The worker's statement timeout here: what a held row lock exceeds (the second test), while a chunk of 100
 * buckets stays well inside it even on a machine busy with other test files.
 */
const WORKER_QUERY_TIMEOUT_MS = 2_000;
const EXPIRED = 'customer.voucher.loyalty_card.points_expired';

/**
 * Expiry is bounded per card: one card's due buckets are expired in chunks, and a card whose expiry still
 * cannot finish is set aside, while every other card's buckets expire on time (issue 36). A lower statement
 * timeout for the worker stands in for a card of 100,000 buckets.
 */
describe('point expiry bounded per card', () => {
  const config = { PENDING_POINTS_DAY_MS: '1000', RATE_LIMIT_PER_SECOND: '0', POINTS_EXPIRY_SWEEP_MS: String(SWEEP_MS), METRICS_GAUGE_CACHE_MS: '0', METRICS_PUBLIC: 'true' };
  const stack = useStack({
    config,
    projects: ['Poison card project', 'Neighbour project'],
    pointsDb: true,
    beforeClose: async ({ db, a, b }) => {
      expect(await projectViolations(db, a.project.id)).toEqual([]);
      expect(await projectViolations(db, b.project.id)).toEqual([]);
    },
  });
  const { db } = stack;
  const worker = () => stack.startWorker(testConfig({ ...config, DATABASE_QUERY_TIMEOUT_MS: String(WORKER_QUERY_TIMEOUT_MS), POINTS_EXPIRY_CHUNK_BUCKETS: '100' }));
  const status = async (cardId: string) => (await db.query<{ status: string; n: number }>(`SELECT status, count(*)::int AS n FROM loyalty_points_buckets WHERE voucher_id = $1 GROUP BY status ORDER BY status`, [cardId]));

  async function card(who = stack.a) {
    const { campaign } = await pointsCampaign(stack.app, who, [{ points: 10 }]);
    const code = await enrol(stack.app, who, campaign, unique('bounds-holder'));
    return db.card(code);
  }

  afterEach(() => stack.stopWorker());

  it('another project\'s due bucket expires beside a card with 30,000 due buckets; that card\'s expire in chunks of 100, one ledger row and one event each', async () => {
    const poison = await card(stack.a);
    const neighbour = await card(stack.b);
    await addDueBuckets(db, poison.id, 30_000);
    await addDueBuckets(db, neighbour.id, 1);
    await worker();
    await waitFor(async () => ((await status(neighbour.id))[0]?.status === 'EXPIRED' ? true : undefined), { timeoutMs: 20_000, intervalMs: 100 });
    await waitFor(async () => ((await status(poison.id)).map((s) => `${s.status} ${s.n}`).join() === 'EXPIRED 30000' ? true : undefined), { timeoutMs: 60_000, intervalMs: 200 });
    const [rows] = await db.query<{ n: number; most: number; named: number; points: number }>(
      `SELECT count(*)::int AS n, max(json_array_length(details->'buckets'))::int AS most, sum(json_array_length(details->'buckets'))::int AS named, -sum(points)::int AS points
       FROM voucher_transactions WHERE voucher_id = $1 AND type = 'POINTS_EXPIRATION'`,
      [poison.id],
    );
    expect(rows).toEqual({ n: 300, most: 100, named: 30_000, points: 30_000 });
    const [events] = await db.query<{ n: number; most: number }>(
      `SELECT count(*)::int AS n, max(json_array_length(data->'buckets'))::int AS most FROM events WHERE type = $1 AND data->'voucher'->>'id' = $2`,
      [EXPIRED, poison.id],
    );
    expect(events).toEqual({ n: 300, most: 100 });
    expect((await db.card((await db.query<{ code: string }>('SELECT code FROM vouchers WHERE id = $1', [poison.id]))[0].code)).balance).toBe(0);
  }, 120_000);

  it('a card whose expiry cannot finish (a statement past the timeout) is set aside and shown; the others expire; released, it expires', async () => {
    const poison = await card(stack.a);
    const neighbour = await card(stack.b);
    await addDueBuckets(db, poison.id, 3);
    await addDueBuckets(db, neighbour.id, 2);
    // Another session holds one of the card's buckets: the expiry statement waits on it past its timeout.
    const holder = new PointsDb();
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM loyalty_points_buckets WHERE voucher_id = $1 ORDER BY id LIMIT 1 FOR UPDATE`, [poison.id]);
      await worker();
      await waitFor(async () => ((await status(neighbour.id))[0]?.status === 'EXPIRED' ? true : undefined), { timeoutMs: 20_000, intervalMs: 100 });
      const setAside = await waitFor(
        async () => (await db.query<{ error: string | null }>('SELECT expiry_error AS error FROM vouchers WHERE id = $1', [poison.id]))[0].error ?? undefined,
        { timeoutMs: 20_000, intervalMs: 100 },
      );
      expect(setAside).toContain('statement timeout');
      const metrics = await stack.http().get('/metrics');
      expect(metrics.text).toMatch(/^loyalty_points_expiry_set_aside_cards 1$/m);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    // Set aside, it waits for POINTS_EXPIRY_RETRY_MS (an hour by default) or an operator: the CLI releases it.
    expect((await status(poison.id)).map((s) => `${s.status} ${s.n}`)).toEqual(['ACTIVE 3']);
    expect(JSON.parse(await cliOk(['expiry-set-aside', '--release', poison.id]))).toEqual({ released: [poison.id] });
    await waitFor(async () => ((await status(poison.id))[0]?.status === 'EXPIRED' ? true : undefined), { timeoutMs: 20_000, intervalMs: 100 });
    expect((await db.query<{ error: string | null }>('SELECT expiry_error AS error FROM vouchers WHERE id = $1', [poison.id]))[0].error).toBeNull();
    expect((await stack.http().get('/metrics')).text).toMatch(/^loyalty_points_expiry_set_aside_cards 0$/m);
  }, 120_000);
});
