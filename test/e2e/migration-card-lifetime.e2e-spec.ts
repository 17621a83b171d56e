import { CardLifetime1795570000000 } from '../../src/database/migrations/1795570000000-CardLifetime.js';
import { useMigrationDatabase } from '../support/migration-db.js';

/**
 * Issue 29's data migrations on a database with cards, pending entries, activations and orders:
 * CardLifetime gives each card its lifetime counts from the ledger and the entries (added by hand =
 * Σ POINTS_ADDITION − the initial points; pending activated and canceled = Σ of the entries in that status),
 * and EventPayloadFields marks the orders' items `order_item` and leaves `banner` out of the entries (and the
 * activation rows carrying them) whose rule had none. A database of its own, migrated up to CardLifetime,
 * filled by SQL as the earlier schema allows, then migrated to the end.
 */
describe('migrations CardLifetime and EventPayloadFields on existing data', () => {
  const database = useMigrationDatabase('card_lifetime_migration', CardLifetime1795570000000);
  const details = (banner: string | null) => ({ earning_rule: { id: 'ern_m', source: { banner } }, order: { id: 'ord_m1', source_id: null }, event: { id: 'evcus_m', type: 'customer.order.paid' } });

  it('counts what each card was given by hand and what its pending points became; marks order items; drops null banners', async () => {
    await database.fill(async (old) => {
      await old.query(`INSERT INTO projects (id, name) VALUES ('proj_m', 'm')`);
      await old.query(
        `INSERT INTO campaigns (id, project_id, name, type, voucher, creation_status, vouchers_generation_status)
         VALUES ('camp_m', 'proj_m', 'm', 'AUTO_UPDATE', '{"loyalty_card": {"points": 10}}', 'DONE', 'DONE')`,
      );
      // The initial-points trigger writes each card's POINTS_ADDITION of its 10 initial points.
      await old.query(
        `INSERT INTO vouchers (id, project_id, campaign_id, code, initial_points, points, balance, pending_points) VALUES
         ('v_a', 'proj_m', 'camp_m', 'A', 10, 10, 10, 0), ('v_b', 'proj_m', 'camp_m', 'B', 10, 10, 10, 0), ('v_c', 'proj_m', 'camp_m', 'C', 0, 0, 0, 0)`,
      );
      await old.query(
        `INSERT INTO voucher_transactions (id, project_id, voucher_id, campaign_id, type, points, balance_after, details) VALUES
         ('vtx_h1', 'proj_m', 'v_a', 'camp_m', 'POINTS_ADDITION', 20, 30, '{"reason": "by hand"}'),
         ('vtx_h2', 'proj_m', 'v_a', 'camp_m', 'POINTS_ADDITION', 5, 35, '{"reason": "by hand"}'),
         ('vtx_r1', 'proj_m', 'v_a', 'camp_m', 'POINTS_REMOVAL', -4, 31, '{"reason": "by hand"}')`,
      );
      await old.query(
        `INSERT INTO orders (id, project_id, source_id, status, amount, items, metadata) VALUES
         ('ord_m1', 'proj_m', NULL, 'PAID', 1000, '[{"product_id": "p1", "quantity": 2}, {"sku_id": "s1", "price": null}]', '{}'),
         ('ord_m2', 'proj_m', 'o-2', 'PAID', 500, '[]', '{}')`,
      );
      await old.query(
        `INSERT INTO loyalty_pending_points (id, project_id, voucher_id, campaign_id, customer_id, order_id, earning_rule_id, points, status, activates_at, details, created_at, updated_at, settled_at) VALUES
         ('lopp_1', 'proj_m', 'v_a', 'camp_m', 'cust_m', 'ord_m1', 'ern_m', 7, 'ACTIVATED', '2026-01-02T00:00:00Z', $1, '2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z', '2026-01-02T00:00:00Z'),
         ('lopp_2', 'proj_m', 'v_a', 'camp_m', 'cust_m', 'ord_m1', 'ern_m', 3, 'CANCELED', '2026-01-02T00:00:00Z', $1, '2026-01-01T00:00:00Z', '2026-01-01T12:00:00Z', '2026-01-01T12:00:00Z'),
         ('lopp_3', 'proj_m', 'v_a', 'camp_m', 'cust_m', 'ord_m1', 'ern_m', 11, 'PENDING', '2099-01-02T00:00:00Z', $2, '2026-01-01T00:00:00Z', NULL, NULL),
         ('lopp_4', 'proj_m', 'v_b', 'camp_m', 'cust_m', 'ord_m2', 'ern_m', 6, 'ACTIVATED', '2026-01-02T00:00:00Z', $2, '2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z', '2026-01-02T00:00:00Z')`,
        [JSON.stringify(details(null)), JSON.stringify(details('Ten points'))],
      );
      await old.query(
        `INSERT INTO voucher_transactions (id, project_id, voucher_id, campaign_id, type, points, balance_after, order_id, pending_points_id, details) VALUES
         ('vtx_a1', 'proj_m', 'v_a', 'camp_m', 'PENDING_POINTS_ACTIVATION', 7, 38, 'ord_m1', 'lopp_1', '{"pending_points": {"id": "lopp_1"}}'),
         ('vtx_b1', 'proj_m', 'v_b', 'camp_m', 'PENDING_POINTS_ACTIVATION', 6, 16, 'ord_m2', 'lopp_4', '{"pending_points": {"id": "lopp_4"}}')`,
      );
    });
    await database.open(async (current) => {
      await current.runMigrations();
      expect(await current.query(`SELECT id, added_points::int AS added, pending_activated_points::int AS activated, pending_canceled_points::int AS canceled FROM vouchers ORDER BY id`)).toEqual([
        { id: 'v_a', added: 25, activated: 7, canceled: 3 },
        { id: 'v_b', added: 0, activated: 6, canceled: 0 },
        { id: 'v_c', added: 0, activated: 0, canceled: 0 },
      ]);
      expect(await current.query(`SELECT id, items FROM orders ORDER BY id`)).toEqual([
        { id: 'ord_m1', items: [{ product_id: 'p1', quantity: 2, object: 'order_item' }, { sku_id: 's1', price: null, object: 'order_item' }] },
        { id: 'ord_m2', items: [] },
      ]);
      const sources = await current.query(`SELECT id, details -> 'earning_rule' -> 'source' AS source FROM loyalty_pending_points ORDER BY id`);
      expect(sources).toEqual([
        { id: 'lopp_1', source: {} },
        { id: 'lopp_2', source: {} },
        { id: 'lopp_3', source: { banner: 'Ten points' } },
        { id: 'lopp_4', source: { banner: 'Ten points' } },
      ]);
      const rows = await current.query(`SELECT id, details -> 'pending_points' -> 'details' -> 'earning_rule' -> 'source' AS source FROM voucher_transactions WHERE type = 'PENDING_POINTS_ACTIVATION' ORDER BY id`);
      expect(rows).toEqual([
        { id: 'vtx_a1', source: {} },
        { id: 'vtx_b1', source: { banner: 'Ten points' } },
      ]);
    });
  });
});
