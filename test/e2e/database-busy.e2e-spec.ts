import type { NestExpressApplication } from '@nestjs/platform-express';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/app/database/database.options.js';
import { TransactionRunner } from '../../src/database/transaction-runner.js';
import { type TestProject, createProject, startApi, testConfig, waitFor } from '../support/harness.js';
import { PointsDb, enrol, payOrder, pointsCampaign, unique } from '../support/points.js';

/**
 * A PostgreSQL that is up but busy: a request waits a bounded time for a row lock or for a free connection,
 * then answers 503 database_busy (Retry-After: 1) with nothing written, not 500 and not "unreachable"; and a
 * transaction that loses a deadlock runs again instead of failing.
 */
describe('a busy database', () => {
  const db = new PointsDb();
  const holder = new pg.Client({ connectionString: testConfig().databaseUrl });

  beforeAll(async () => {
    await db.connect();
    await holder.connect();
  });
  afterAll(async () => {
    await holder.end();
    await db.end();
  });

  /** A project with an accrual rule, one member's card, and that card locked by another session until `release`. */
  async function lockedCard(app: NestExpressApplication): Promise<{ who: TestProject; customer: string; code: string; release: () => Promise<void> }> {
    const who = await createProject(app, 'Busy project');
    const { campaign } = await pointsCampaign(app, who, [{ points: 10 }]);
    const customer = unique('busy');
    const code = await enrol(app, who, campaign, customer);
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM vouchers WHERE code = $1 FOR UPDATE', [code]);
    return { who, customer, code, release: async () => void (await holder.query('COMMIT')) };
  }

  it('a row lock held past DATABASE_LOCK_TIMEOUT_MS: 503 database_busy within the bound, nothing written; the same order earns once later', async () => {
    const app = await startApi(testConfig({ DATABASE_LOCK_TIMEOUT_MS: '300', RATE_LIMIT_PER_SECOND: '0' }));
    try {
      const { who, customer, code, release } = await lockedCard(app);
      const sourceId = unique('locked-order');
      const started = Date.now();
      const res = await payOrder(app, who, { source_id: sourceId, customer });
      expect({ status: res.status, key: res.body.key, retryAfter: res.headers['retry-after'] }).toEqual({ status: 503, key: 'database_busy', retryAfter: '1' });
      expect(res.body.details).toContain('(a row it needs stayed locked by another request too long)');
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(await db.count('SELECT 1 FROM orders WHERE source_id = $1', [sourceId])).toBe(0);
      await release();
      expect((await payOrder(app, who, { source_id: sourceId, customer })).status).toBe(200);
      expect(await db.card(code)).toMatchObject({ balance: 10, points: 10 });
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await app.close();
    }
  });

  it('every connection of the pool in use past DATABASE_POOL_WAIT_MS: 503 database_busy for the requests that waited, the others complete', async () => {
    const app = await startApi(testConfig({ DATABASE_POOL_SIZE: '2', DATABASE_POOL_WAIT_MS: '200', DATABASE_LOCK_TIMEOUT_MS: '10000', RATE_LIMIT_PER_SECOND: '0' }));
    try {
      const { who, customer, code, release } = await lockedCard(app);
      // Two orders take the pool's two connections and wait on the card; the others find no connection and are
      // answered while the lock is still held.
      const started = Date.now();
      const answered: { status: number; key?: string; details?: string; retryAfter?: string; ms: number }[] = [];
      const all = Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          payOrder(app, who, { source_id: unique(`pool-${i}`), customer }).then((res) => answered.push({ status: res.status, key: res.body.key, details: res.body.details, retryAfter: res.headers['retry-after'], ms: Date.now() - started })),
        ),
      );
      await waitFor(async () => (answered.length >= 4 ? true : undefined), { timeoutMs: 5_000 });
      await release();
      await all;
      const histogram: Record<string, number> = {};
      for (const res of answered) histogram[`${res.status} ${res.key ?? ''}`.trim()] = (histogram[`${res.status} ${res.key ?? ''}`.trim()] ?? 0) + 1;
      expect(Object.keys(histogram).filter((key) => key !== '200' && key !== '503 database_busy')).toEqual([]);
      const busy = answered.filter((res) => res.status === 503);
      expect(busy.length).toBeGreaterThanOrEqual(4);
      // The two that held the pool's connections waited on the card and complete once it is released.
      expect(histogram['200']).toBe(6 - busy.length);
      expect(histogram['200']).toBeGreaterThanOrEqual(1);
      expect(busy.every((res) => res.retryAfter === '1' && res.ms < 3_000)).toBe(true);
      // A request that found no connection, or whose batch found none in time: the answer says which bound it met.
      for (const res of busy) expect(res.details).toMatch(/^The database is busy \((no connection of the pool became free in time|its batch did not start in time)\)/);
      expect(await db.card(code)).toMatchObject({ balance: 10 * (histogram['200'] ?? 0) });
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await app.close();
    }
  });

  it('two transactions that lock in opposite orders: the loser of the deadlock runs again and both commit', async () => {
    const dataSource = new DataSource(dataSourceOptions(testConfig(), 'loyalty-deadlock-test', 2));
    await dataSource.initialize();
    try {
      const runner = new TransactionRunner(dataSource);
      const [a, b] = [Math.floor(Math.random() * 1e9), Math.floor(Math.random() * 1e9) + 1];
      let attempts = 0;
      let bothHoldOne: () => void = () => undefined;
      let held = 0;
      const barrier = new Promise<void>((resolve) => (bothHoldOne = resolve));
      const work = (first: number, second: number) =>
        runner.run(async (tx) => {
          attempts += 1;
          await tx.query('SELECT pg_advisory_xact_lock($1)', [first]);
          if ((held += 1) === 2) bothHoldOne();
          await barrier;
          await tx.query('SELECT pg_advisory_xact_lock($1)', [second]);
          return first;
        });
      await expect(Promise.all([work(a, b), work(b, a)])).resolves.toEqual([a, b]);
      expect(attempts).toBe(3);
    } finally {
      await dataSource.destroy();
    }
  });
});
