import { OrderDiscount1795830000000 } from '../../src/database/migrations/1795830000000-OrderDiscount.js';
import { useMigrationDatabase } from '../support/migration-db.js';

/**
 * The OrderDiscount migration on orders that COIN redemptions discounted before it: each order gets the sum of the
 * `applied_discount_amount` of its redemptions not rolled back, capped at its amount; other orders 0; the events'
 * order (`loyalty_order_json`) says the total after it. Down drops the column and restores the function.
 */
describe('migration OrderDiscount on orders already redeemed against', () => {
  const database = useMigrationDatabase('order_discount_migration', OrderDiscount1795830000000);

  it('backfills discount_amount from the redemptions not rolled back, and down takes the column away', async () => {
    await database.fill(async (old) => {
      await old.query(`INSERT INTO projects (id, name) VALUES ('proj_d', 'd')`);
      await old.query(
        `INSERT INTO campaigns (id, project_id, name, type, voucher, creation_status, vouchers_generation_status)
         VALUES ('camp_d', 'proj_d', 'd', 'AUTO_UPDATE', '{"loyalty_card": {"points": 0}}', 'DONE', 'DONE')`,
      );
      await old.query(`INSERT INTO vouchers (id, project_id, campaign_id, code, points, balance) VALUES ('v_d', 'proj_d', 'camp_d', 'D', 0, 0)`);
      await old.query(`INSERT INTO orders (id, project_id, status, amount) VALUES ('ord_d1', 'proj_d', 'PAID', 45000), ('ord_d2', 'proj_d', 'CREATED', 1000), ('ord_d3', 'proj_d', 'PAID', 500)`);
      const redemption = (id: string, orderId: string, status: string, applied: number) =>
        old.query(
          `INSERT INTO redemptions (id, project_id, object, status, voucher_id, campaign_id, reward_id, assignment_id, points, order_id, transaction_id, snapshot)
           VALUES ($1, 'proj_d', 'redemption', $2, 'v_d', 'camp_d', 'rew_d', 'rewa_d', 10, $3, 'vtx_d', $4)`,
          [id, status, orderId, JSON.stringify({ customer: null, voucher: {}, reward: {}, order: { id: orderId, discount_amount: applied, applied_discount_amount: applied } })],
        );
      await redemption('r_d1', 'ord_d1', 'SUCCEEDED', 2000);
      await redemption('r_d2', 'ord_d1', 'SUCCEEDED', 3000);
      await redemption('r_d3', 'ord_d1', 'ROLLED_BACK', 5000);
      await redemption('r_d4', 'ord_d2', 'SUCCEEDED', 5000);
    });
    await database.open(async (current) => {
      const orders = async () => (await current.query(`SELECT id, discount_amount::int AS discount, (loyalty_order_json(o)->>'total_amount')::int AS total FROM orders o ORDER BY id`)) as { id: string; discount: number; total: number }[];
      await current.runMigrations();
      expect(await orders()).toEqual([
        { id: 'ord_d1', discount: 5000, total: 40000 },
        { id: 'ord_d2', discount: 1000, total: 0 },
        { id: 'ord_d3', discount: 0, total: 500 },
      ]);
      await current.undoLastMigration();
      expect(await current.query(`SELECT 1 FROM information_schema.columns WHERE table_name = 'orders' AND column_name = 'discount_amount'`)).toEqual([]);
      expect((await current.query(`SELECT (loyalty_order_json(o)->>'total_amount')::int AS total FROM orders o WHERE id = 'ord_d1'`))[0]).toEqual({ total: 45000 });
      await current.runMigrations();
      expect((await orders())[0]).toEqual({ id: 'ord_d1', discount: 5000, total: 40000 });
    }, [...database.before, OrderDiscount1795830000000]);
  });
});
