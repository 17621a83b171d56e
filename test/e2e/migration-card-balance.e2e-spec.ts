import { CardBalanceCheck1795800000000 } from '../../src/database/migrations/1795800000000-CardBalanceCheck.js';
import { useMigrationDatabase } from '../support/migration-db.js';

/**
 * The CardBalanceCheck migration on existing cards: it refuses, naming the cards, while one breaks balance =
 * points − expired − subtracted ≥ 0 (changing nothing); once they are set right, it adds the redemption
 * counters and the card's checks, validated (CardBalanceValidated), and from then on a write that breaks them
 * fails. A database of its own, migrated up to the migration before, filled by SQL, then migrated to the end.
 */
describe('migration CardBalanceCheck on existing cards', () => {
  const database = useMigrationDatabase('card_balance_migration', CardBalanceCheck1795800000000);

  it('names the cards that break the invariant and changes nothing; once they are right, adds the checks, validated', async () => {
    await database.fill(async (old) => {
      await old.query(`INSERT INTO projects (id, name) VALUES ('proj_c', 'c')`);
      await old.query(
        `INSERT INTO campaigns (id, project_id, name, type, voucher, creation_status, vouchers_generation_status)
         VALUES ('camp_c', 'proj_c', 'c', 'AUTO_UPDATE', '{"loyalty_card": {"points": 0}}', 'DONE', 'DONE')`,
      );
      await old.query(
        `INSERT INTO vouchers (id, project_id, campaign_id, code, points, balance, expired_points, subtracted_points) VALUES
         ('v_ok', 'proj_c', 'camp_c', 'OK', 10, 4, 2, 4), ('v_bad1', 'proj_c', 'camp_c', 'B1', 10, 7, 0, 0), ('v_bad2', 'proj_c', 'camp_c', 'B2', 0, -1, 0, -1)`,
      );
      // More than the refusal names: 21 more off by one.
      await old.query(
        `INSERT INTO vouchers (id, project_id, campaign_id, code, points, balance)
         SELECT 'v_more' || lpad(g::text, 2, '0'), 'proj_c', 'camp_c', 'M' || g, 5, 6 FROM generate_series(1, 21) g`,
      );
    });
    const columns = `SELECT column_name FROM information_schema.columns WHERE table_name = 'vouchers' AND column_name LIKE 'redeemed%' ORDER BY column_name`;

    await database.open(async (current) => {
      const refused = await current.runMigrations().then(
        () => null,
        (error: Error) => error.message,
      );
      expect(refused).toContain('CardBalanceCheck: 23 card(s) break balance = points - expired_points - subtracted_points >= 0');
      expect(refused).toContain('v_bad1, v_bad2, v_more01');
      expect(refused).toContain('v_more18 and 3 more');
      expect(refused).not.toContain('v_ok');
      expect(await current.query(columns)).toEqual([]);
    });

    await database.open(async (current) => {
      await current.query(`UPDATE vouchers SET subtracted_points = 3 WHERE id = 'v_bad1'`);
      await current.query(`UPDATE vouchers SET balance = 0, subtracted_points = 0 WHERE id = 'v_bad2'`);
      await current.query(`UPDATE vouchers SET points = 6 WHERE id LIKE 'v_more%'`);
      await current.runMigrations();
      expect(await current.query(columns)).toEqual([{ column_name: 'redeemed_points' }, { column_name: 'redeemed_quantity' }]);
      expect(
        await current.query(`SELECT conname, convalidated FROM pg_constraint WHERE conrelid = 'vouchers'::regclass AND conname IN ('CHK_vouchers_balance', 'CHK_vouchers_redeemed') ORDER BY conname`),
      ).toEqual([
        { conname: 'CHK_vouchers_balance', convalidated: true },
        { conname: 'CHK_vouchers_redeemed', convalidated: true },
      ]);
      expect(await current.query(`SELECT id, redeemed_points::int AS points, redeemed_quantity AS quantity FROM vouchers WHERE id = 'v_ok'`)).toEqual([
        { id: 'v_ok', points: 0, quantity: 0 },
      ]);
      await expect(current.query(`UPDATE vouchers SET balance = balance + 1 WHERE id = 'v_ok'`)).rejects.toMatchObject({
        driverError: { code: '23514', constraint: 'CHK_vouchers_balance' },
      });
    });
  });
});
