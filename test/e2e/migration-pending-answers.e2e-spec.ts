import { PendingPointsAnswers1795572900000 } from '../../src/database/migrations/1795572900000-PendingPointsAnswers.js';
import { useMigrationDatabase } from '../support/migration-db.js';

/**
 * The PendingPointsAnswers migration on a ledger written before it: the activation rows whose
 * `details.pending_points` is only `{id}` get the whole entry (as the lists and events now show it), their
 * other keys in place; rows that carry more, and rows of other types, stay as they are. Down takes the rows
 * back to `{id}`. A database of its own, migrated up to the migration before, filled by SQL, then migrated.
 */
describe('migration PendingPointsAnswers on an existing ledger', () => {
  const database = useMigrationDatabase('pending_answers_migration', PendingPointsAnswers1795572900000);

  const DETAILS = {
    event: { id: 'evcus_m1', type: 'customer.order.paid', group_id: 'v-m1', entity_id: 'cust_m', created_at: '2026-01-01T10:00:00.000Z', category: 'ACTION', event_source: { channel: 'API' } },
    earning_rule: { id: 'ern_m', source: { banner: null } },
    order: { id: 'ord_m1', source_id: null },
  };
  /** The ledger's details of an activation as the statement before the migration wrote them. */
  const oldDetails = (entryId: string, orderId: string) => ({
    balance: { type: 'loyalty_card', total: 10, object: 'balance', points: 10, balance: 10, related_object: { id: 'v_m', type: 'voucher' } },
    order: { id: orderId, source_id: null },
    event: { id: 'evcus_m1', type: 'customer.order.paid' },
    earning_rule: { id: 'ern_m', source: { banner: null } },
    pending_points: { id: entryId },
  });

  it('writes the whole entry into activation rows that carry only its id, and down takes it out again', async () => {
    await database.fill(async (old) => {
      await old.query(`INSERT INTO projects (id, name) VALUES ('proj_m', 'm')`);
      await old.query(
        `INSERT INTO campaigns (id, project_id, name, type, voucher, creation_status, vouchers_generation_status)
         VALUES ('camp_m', 'proj_m', 'm', 'AUTO_UPDATE', '{"loyalty_card": {"points": 0}}', 'DONE', 'DONE')`,
      );
      await old.query(`INSERT INTO vouchers (id, project_id, campaign_id, code, points, balance) VALUES ('v_m', 'proj_m', 'camp_m', 'M', 30, 30)`);
      await old.query(
        `INSERT INTO loyalty_pending_points (id, project_id, voucher_id, campaign_id, customer_id, order_id, earning_rule_id, points, status, activates_at, details, created_at, updated_at, settled_at)
         VALUES ('lopp_m1', 'proj_m', 'v_m', 'camp_m', 'cust_m', 'ord_m1', 'ern_m', 10, 'ACTIVATED', '2026-01-02T23:59:59.999Z', $1, '2026-01-01T10:00:00.001Z', '2026-01-03T00:00:00.500Z', '2026-01-03T00:00:00.500Z'),
                ('lopp_m2', 'proj_m', 'v_m', 'camp_m', 'cust_m', 'ord_m2', 'ern_m', 10, 'ACTIVATED', '2026-01-04T00:00:00.000Z', $1, '2026-01-01T11:00:00.000Z', '2026-01-04T00:00:01.000Z', '2026-01-04T00:00:01.000Z')`,
        [JSON.stringify(DETAILS)],
      );
      // lopp_m1's row as written before; lopp_m2's carries more than its id already (left alone); a POINTS_ADDITION.
      await old.query(
        `INSERT INTO voucher_transactions (id, project_id, voucher_id, campaign_id, type, points, balance_after, order_id, pending_points_id, details, created_at) VALUES
         ('vtx_m1', 'proj_m', 'v_m', 'camp_m', 'PENDING_POINTS_ACTIVATION', 10, 10, 'ord_m1', 'lopp_m1', $1, '2026-01-03T00:00:00.500Z'),
         ('vtx_m2', 'proj_m', 'v_m', 'camp_m', 'PENDING_POINTS_ACTIVATION', 10, 20, 'ord_m2', 'lopp_m2', $2, '2026-01-04T00:00:01.000Z'),
         ('vtx_m3', 'proj_m', 'v_m', 'camp_m', 'POINTS_ADDITION', 10, 30, NULL, NULL, '{"balance": {"points": 10}, "reason": "by hand"}', '2026-01-05T00:00:00.000Z')`,
        [JSON.stringify(oldDetails('lopp_m1', 'ord_m1')), JSON.stringify({ ...oldDetails('lopp_m2', 'ord_m2'), pending_points: { id: 'lopp_m2', points: 10 } })],
      );
    });
    // Up to this migration only, so that undoing the last migration undoes this one whatever comes later.
    await database.open(async (current) => {
      const ledger = async () =>
        new Map(((await current.query(`SELECT id, details::text AS details FROM voucher_transactions ORDER BY id`)) as { id: string; details: string }[]).map((r) => [r.id, r.details]));
      const untouched = await ledger();
      await current.runMigrations();
      const after = await ledger();
      const details = JSON.parse(after.get('vtx_m1') as string) as Record<string, unknown>;
      expect(Object.keys(details)).toEqual(['balance', 'order', 'event', 'earning_rule', 'pending_points']);
      expect(details).toEqual({
        ...oldDetails('lopp_m1', 'ord_m1'),
        pending_points: {
          id: 'lopp_m1',
          voucher_id: 'v_m',
          campaign_id: 'camp_m',
          customer_id: 'cust_m',
          order_id: 'ord_m1',
          points: 10,
          activates_at: '2026-01-02',
          activates_at_time: '2026-01-02T23:59:59.999Z',
          status: 'ACTIVATED',
          details: DETAILS,
          created_at: '2026-01-01T10:00:00.001Z',
          updated_at: '2026-01-03T00:00:00.500Z',
        },
      });
      expect(after.get('vtx_m2')).toBe(untouched.get('vtx_m2'));
      expect(after.get('vtx_m3')).toBe(untouched.get('vtx_m3'));

      await current.undoLastMigration();
      const down = await ledger();
      expect(JSON.parse(down.get('vtx_m1') as string)).toEqual(oldDetails('lopp_m1', 'ord_m1'));
      expect(JSON.parse(down.get('vtx_m2') as string)).toEqual(oldDetails('lopp_m2', 'ord_m2'));
      expect(down.get('vtx_m3')).toBe(untouched.get('vtx_m3'));
      const [{ activates_at }] = await current.query(`SELECT loyalty_pending_points_json(p)->>'activates_at' AS activates_at FROM loyalty_pending_points p WHERE id = 'lopp_m1'`);
      expect(activates_at).toBe('2026-01-02T23:59:59.999Z');
      // Up again: down left nothing in the way.
      await current.runMigrations();
      expect(JSON.parse((await ledger()).get('vtx_m1') as string)).toEqual(details);
    }, [...database.before, PendingPointsAnswers1795572900000]);
  });
});
