import { PointBuckets1795560000000 } from '../../src/database/migrations/1795560000000-PointBuckets.js';
import { useMigrationDatabase } from '../support/migration-db.js';

/**
 * The PointBuckets migration on a database that has cards already: each card with a balance gets one bucket
 * holding it, dated by its campaign's expiration rules from today (none without rules), and its next
 * expiration; cards at 0 get none. A database of its own, migrated up to the migration before, filled by
 * SQL as the earlier schema allows, then migrated to the end.
 */
describe('migration PointBuckets on existing cards', () => {
  const database = useMigrationDatabase('buckets_migration', PointBuckets1795560000000);

  it('gives every card with a balance one bucket of it, dated by its campaign\'s rules', async () => {
    await database.fill(async (old) => {
      await old.query(`INSERT INTO projects (id, name) VALUES ('proj_m', 'm')`);
      await old.query(
        `INSERT INTO campaigns (id, project_id, name, type, voucher, creation_status, vouchers_generation_status) VALUES
         ('camp_rules', 'proj_m', 'rules', 'AUTO_UPDATE', '{"loyalty_card": {"points": 0, "expiration_rules": {"period_type": "MONTH", "period_value": 2}}}', 'DONE', 'DONE'),
         ('camp_plain', 'proj_m', 'plain', 'AUTO_UPDATE', '{"loyalty_card": {"points": 0}}', 'DONE', 'DONE')`,
      );
      // The trigger's function is today's file already (migrations apply the current files), which names
      // columns this schema does not have yet: the cards go in as a database of that time held them.
      await old.query(`ALTER TABLE vouchers DISABLE TRIGGER vouchers_initial_points_ledger`);
      await old.query(
        `INSERT INTO vouchers (id, project_id, campaign_id, code, points, balance) VALUES
         ('v_m1', 'proj_m', 'camp_rules', 'M1', 70, 70), ('v_m2', 'proj_m', 'camp_plain', 'M2', 30, 30), ('v_m3', 'proj_m', 'camp_plain', 'M3', 0, 0)`,
      );
      await old.query(`ALTER TABLE vouchers ENABLE TRIGGER vouchers_initial_points_ledger`);
    });
    await database.open(async (current) => {
      await current.runMigrations();
      const buckets = await current.query(
        `SELECT voucher_id, total_points::int AS total, remaining::int AS remaining, status, to_char(expires_at, 'YYYY-MM-DD') AS expires_at,
                expires_at = ((now() AT TIME ZONE 'UTC')::date + interval '2 months')::date AS two_months
         FROM loyalty_points_buckets ORDER BY voucher_id`,
      );
      expect(buckets).toEqual([
        { voucher_id: 'v_m1', total: 70, remaining: 70, status: 'ACTIVE', expires_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/), two_months: true },
        { voucher_id: 'v_m2', total: 30, remaining: 30, status: 'ACTIVE', expires_at: null, two_months: null },
      ]);
      const cards = await current.query(`SELECT id, to_char(next_expiration_date, 'YYYY-MM-DD') AS next, next_expiration_points::int AS points FROM vouchers ORDER BY id`);
      expect(cards).toEqual([
        { id: 'v_m1', next: buckets[0].expires_at, points: 70 },
        { id: 'v_m2', next: null, points: 0 },
        { id: 'v_m3', next: null, points: 0 },
      ]);
    });
  });
});
