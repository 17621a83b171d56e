import { EventContract1795700000000 } from '../../src/database/migrations/1795700000000-EventContract.js';
import { useMigrationDatabase } from '../support/migration-db.js';

/**
 * The EventContract migration on entries made before it: a PENDING entry of a rule without a banner gets an
 * empty one (its events and the lists are still to come); a settled one, and a banner a rule has, stay as
 * they are. The events' card function takes the card's next expiration; down gives back the function before.
 */
describe('migration EventContract on existing entries', () => {
  const database = useMigrationDatabase('event_contract_migration', EventContract1795700000000);

  const details = (source: object) => ({
    event: { id: 'evcus_e1', type: 'customer.order.paid', group_id: 'v-e1', entity_id: 'cust_e', created_at: '2026-01-01T10:00:00.000Z', category: 'ACTION', event_source: { channel: 'API' } },
    earning_rule: { id: 'ern_e', source },
    order: { id: 'ord_e', source_id: null },
  });

  it('gives the PENDING entries without a banner an empty one, and the card function the next expiration', async () => {
    await database.fill(async (old) => {
      await old.query(`INSERT INTO projects (id, name) VALUES ('proj_e', 'e')`);
      await old.query(
        `INSERT INTO campaigns (id, project_id, name, type, voucher, creation_status, vouchers_generation_status)
         VALUES ('camp_e', 'proj_e', 'e', 'AUTO_UPDATE', '{"loyalty_card": {"points": 0}}', 'DONE', 'DONE')`,
      );
      await old.query(`INSERT INTO vouchers (id, project_id, campaign_id, code, points, balance, next_expiration_date, next_expiration_points) VALUES ('v_e', 'proj_e', 'camp_e', 'E', 30, 30, '2027-01-31', 30)`);
      const entry = (id: string, status: string) =>
        old.query(
          `INSERT INTO loyalty_pending_points (id, project_id, voucher_id, campaign_id, customer_id, order_id, earning_rule_id, points, status, activates_at, details)
           VALUES ($1, 'proj_e', 'v_e', 'camp_e', 'cust_e', 'ord_e', 'ern_e', 10, $2, '2026-02-01T00:00:00.000Z', $3)`,
          [id, status, JSON.stringify(details(id === 'lopp_banner' ? { banner: 'Bonus' } : {}))],
        );
      await entry('lopp_pending', 'PENDING');
      await entry('lopp_settled', 'ACTIVATED');
      await entry('lopp_banner', 'PENDING');
    });
    await database.open(async (current) => {
      const sources = async () =>
        Object.fromEntries(((await current.query(`SELECT id, details -> 'earning_rule' -> 'source' AS source FROM loyalty_pending_points`)) as { id: string; source: object }[]).map((r) => [r.id, r.source]));
      await current.runMigrations();
      expect(await sources()).toEqual({ lopp_pending: { banner: '' }, lopp_settled: {}, lopp_banner: { banner: 'Bonus' } });
      const [{ card }] = await current.query(`SELECT loyalty_voucher_json(v, 'e', 30, 30, 0, v.next_expiration_date, v.next_expiration_points, true) AS card FROM vouchers v`);
      expect(card.loyalty_card).toEqual({ points: 30, balance: 30, next_expiration_date: '2027-01-31', next_expiration_points: 30, pending_points: 0 });
      const [{ free }] = await current.query(`SELECT loyalty_voucher_json(v, 'e', 30, 30, 0, NULL, 0, true) AS free FROM vouchers v`);
      expect(free.loyalty_card).toEqual({ points: 30, balance: 30, next_expiration_points: 0, pending_points: 0 });

      await current.undoLastMigration();
      const [{ before }] = await current.query(`SELECT loyalty_voucher_json(v, 'e', 30, 30, 0, true) AS before FROM vouchers v`);
      expect(before.loyalty_card).toEqual({ points: 30, balance: 30, pending_points: 0 });
      // Up again: down left nothing in the way.
      await current.runMigrations();
      expect((await sources()).lopp_pending).toEqual({ banner: '' });
    }, [...database.before, EventContract1795700000000]);
  });
});
