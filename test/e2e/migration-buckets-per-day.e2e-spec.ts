import { BucketsPerDay1795610000000 } from '../../src/database/migrations/1795610000000-BucketsPerDay.js';
import { useMigrationDatabase } from '../support/migration-db.js';

/**
 * The BucketsPerDay migration on a database whose cards have a bucket per credit: each card's ACTIVE buckets of
 * one day (and its never-expiring ones) become one, the oldest, holding their points summed; expired buckets
 * and cards with one bucket a day stay as they were; the cards' balances still equal their ACTIVE buckets', and
 * from then on a second ACTIVE bucket of a card's day is refused. A database of its own, migrated up to the
 * migration before, filled by SQL as the earlier schema allows, then migrated to the end.
 */
describe('migration BucketsPerDay on existing buckets', () => {
  const database = useMigrationDatabase('buckets_per_day_migration', BucketsPerDay1795610000000);

  it('merges each card\'s ACTIVE buckets per day into its oldest, summed; leaves expired buckets; the day is unique from then on', async () => {
    await database.fill(async (old) => {
      await old.query(`INSERT INTO projects (id, name) VALUES ('proj_m', 'm')`);
      await old.query(
        `INSERT INTO campaigns (id, project_id, name, type, voucher, creation_status, vouchers_generation_status)
         VALUES ('camp_m', 'proj_m', 'm', 'AUTO_UPDATE', '{"loyalty_card": {"points": 0}}', 'DONE', 'DONE')`,
      );
      await old.query(
        `INSERT INTO vouchers (id, project_id, campaign_id, code, points, balance, expired_points, subtracted_points, next_expiration_date, next_expiration_points) VALUES
         ('v_a', 'proj_m', 'camp_m', 'A', 40, 20, 5, 15, '2099-01-01', 12), ('v_b', 'proj_m', 'camp_m', 'B', 8, 8, 0, 0, '2099-01-01', 8)`,
      );
      await old.query(
        `INSERT INTO loyalty_points_buckets (id, project_id, voucher_id, campaign_id, total_points, remaining, status, expires_at, expire_after, created_at, updated_at) VALUES
         ('lopb_a1', 'proj_m', 'v_a', 'camp_m', 5, 2, 'ACTIVE', '2099-01-01', '2099-01-02T00:00:00Z', '2026-02-01T00:00:00Z', '2026-03-01T00:00:00Z'),
         ('lopb_a2', 'proj_m', 'v_a', 'camp_m', 10, 10, 'ACTIVE', '2099-01-01', '2099-01-02T00:00:00Z', '2026-01-01T00:00:00Z', NULL),
         ('lopb_a3', 'proj_m', 'v_a', 'camp_m', 7, 0, 'ACTIVE', '2099-01-01', '2099-01-02T00:00:00Z', '2026-03-01T00:00:00Z', '2026-03-01T00:00:00Z'),
         ('lopb_a4', 'proj_m', 'v_a', 'camp_m', 3, 3, 'ACTIVE', '2099-02-01', '2099-02-02T00:00:00Z', '2026-01-01T00:00:00Z', NULL),
         ('lopb_a5', 'proj_m', 'v_a', 'camp_m', 6, 1, 'ACTIVE', NULL, NULL, '2026-02-01T00:00:00Z', '2026-03-01T00:00:00Z'),
         ('lopb_a6', 'proj_m', 'v_a', 'camp_m', 4, 4, 'ACTIVE', NULL, NULL, '2026-01-15T00:00:00Z', NULL),
         ('lopb_a7', 'proj_m', 'v_a', 'camp_m', 2, 2, 'EXPIRED', '2026-01-01', '2026-01-02T00:00:00Z', '2025-12-01T00:00:00Z', '2026-01-02T00:00:00Z'),
         ('lopb_a8', 'proj_m', 'v_a', 'camp_m', 3, 3, 'EXPIRED', '2026-01-01', '2026-01-02T00:00:00Z', '2025-12-02T00:00:00Z', '2026-01-02T00:00:00Z'),
         ('lopb_b1', 'proj_m', 'v_b', 'camp_m', 8, 8, 'ACTIVE', '2099-01-01', '2099-01-02T00:00:00Z', '2026-01-01T00:00:00Z', NULL)`,
      );
    });
    await database.open(async (current) => {
      await current.runMigrations();
      const buckets = await current.query(
        `SELECT id, voucher_id, total_points::int AS total, remaining::int AS remaining, status, to_char(expires_at, 'YYYY-MM-DD') AS day,
                to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS created, updated_at > '2026-06-01' AS updated_now
         FROM loyalty_points_buckets ORDER BY voucher_id, status, expires_at NULLS LAST`,
      );
      expect(buckets).toEqual([
        { id: 'lopb_a2', voucher_id: 'v_a', total: 22, remaining: 12, status: 'ACTIVE', day: '2099-01-01', created: '2026-01-01', updated_now: true },
        { id: 'lopb_a4', voucher_id: 'v_a', total: 3, remaining: 3, status: 'ACTIVE', day: '2099-02-01', created: '2026-01-01', updated_now: null },
        { id: 'lopb_a6', voucher_id: 'v_a', total: 10, remaining: 5, status: 'ACTIVE', day: null, created: '2026-01-15', updated_now: true },
        { id: 'lopb_a7', voucher_id: 'v_a', total: 2, remaining: 2, status: 'EXPIRED', day: '2026-01-01', created: '2025-12-01', updated_now: false },
        { id: 'lopb_a8', voucher_id: 'v_a', total: 3, remaining: 3, status: 'EXPIRED', day: '2026-01-01', created: '2025-12-02', updated_now: false },
        { id: 'lopb_b1', voucher_id: 'v_b', total: 8, remaining: 8, status: 'ACTIVE', day: '2099-01-01', created: '2026-01-01', updated_now: null },
      ]);
      // The cards' columns are untouched and still agree with their ACTIVE buckets; none is set aside.
      expect(
        await current.query(
          `SELECT v.id, v.balance::int AS balance, (SELECT sum(remaining)::int FROM loyalty_points_buckets b WHERE b.voucher_id = v.id AND b.status = 'ACTIVE') AS active,
                  to_char(v.next_expiration_date, 'YYYY-MM-DD') AS next, v.next_expiration_points::int AS next_points, v.expiry_error
           FROM vouchers v ORDER BY v.id`,
        ),
      ).toEqual([
        { id: 'v_a', balance: 20, active: 20, next: '2099-01-01', next_points: 12, expiry_error: null },
        { id: 'v_b', balance: 8, active: 8, next: '2099-01-01', next_points: 8, expiry_error: null },
      ]);
      for (const day of [`'2099-01-01'`, 'NULL']) {
        await expect(
          current.query(
            `INSERT INTO loyalty_points_buckets (id, project_id, voucher_id, campaign_id, total_points, remaining, expires_at) VALUES ('lopb_dup', 'proj_m', 'v_a', 'camp_m', 1, 1, ${day})`,
          ),
        ).rejects.toMatchObject({ driverError: { code: '23505', constraint: 'uq_points_buckets_card_day' } });
      }
      // An expired bucket's day is free for a new ACTIVE one.
      await current.query(`INSERT INTO loyalty_points_buckets (id, project_id, voucher_id, campaign_id, total_points, remaining, expires_at) VALUES ('lopb_new', 'proj_m', 'v_a', 'camp_m', 1, 1, '2026-01-01')`);
    });
  });
});
