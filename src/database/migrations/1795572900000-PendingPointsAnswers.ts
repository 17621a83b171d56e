import type { MigrationInterface, QueryRunner } from 'typeorm';
import { applySqlFunctions, type SqlFunctionPins } from '../sql-functions.js';
import { lockCardsOf } from './lock-cards.js';

/**
 * Issue 29: pending-points entries answer Voucherify's `LoyaltyPendingPoints`.
 * - `loyalty_pending_points_json` gives `activates_at` as the UTC date and the moment as `activates_at_time`,
 *   and leaves `updated_at` out until the entry changes;
 * - the ledger rows of activations written before carry only `{id}` in `details.pending_points`: they get the
 *   whole entry, as the function now builds it. An activated entry no longer changes (every change of an
 *   entry requires PENDING), so its row is the entry as it was when activated. The other keys of `details`
 *   keep their place (it is `json`, shown in the order written). Events already recorded stay as they were
 *   sent.
 */
export class PendingPointsAnswers1795572900000 implements MigrationInterface {
  name = 'PendingPointsAnswers1795572900000';
  /** The SQL functions it applies, pinned to their files as they were (docs/architecture.md, "SQL functions"). */
  static readonly sqlFunctions: SqlFunctionPins = {
    loyalty_pending_points_json: 'c94d085ba660bbf4dd8291bdfa6bb9d19ed9039234945e3412280db775e76707',
  };

  public async up(queryRunner: QueryRunner): Promise<void> {
    await applySqlFunctions(queryRunner, PendingPointsAnswers1795572900000.sqlFunctions);
    await lockCardsOf(queryRunner, `SELECT voucher_id FROM voucher_transactions WHERE type = 'PENDING_POINTS_ACTIVATION' AND (details->'pending_points')::jsonb - 'id' = '{}'::jsonb`);
    await queryRunner.query(`
      UPDATE "voucher_transactions" t
      SET "details" = (SELECT json_object_agg(d.key, CASE WHEN d.key = 'pending_points' THEN loyalty_pending_points_json(p) ELSE d.value END ORDER BY d.n)
                       FROM json_each(t.details) WITH ORDINALITY AS d(key, value, n))
      FROM "loyalty_pending_points" p
      WHERE t.type = 'PENDING_POINTS_ACTIVATION' AND p.id = t.pending_points_id AND (t.details->'pending_points')::jsonb - 'id' = '{}'::jsonb`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await lockCardsOf(queryRunner, `SELECT voucher_id FROM voucher_transactions WHERE type = 'PENDING_POINTS_ACTIVATION' AND (details->'pending_points')::jsonb - 'id' <> '{}'::jsonb`);
    await queryRunner.query(`
      UPDATE "voucher_transactions" t
      SET "details" = (SELECT json_object_agg(d.key, CASE WHEN d.key = 'pending_points' THEN json_build_object('id', d.value->>'id') ELSE d.value END ORDER BY d.n)
                       FROM json_each(t.details) WITH ORDINALITY AS d(key, value, n))
      WHERE t.type = 'PENDING_POINTS_ACTIVATION' AND (t.details->'pending_points')::jsonb - 'id' <> '{}'::jsonb`);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION "loyalty_pending_points_json"(p "loyalty_pending_points") RETURNS json LANGUAGE sql STABLE AS $$
          SELECT json_build_object('id', p.id, 'voucher_id', p.voucher_id, 'campaign_id', p.campaign_id, 'customer_id', p.customer_id,
              'order_id', p.order_id, 'points', p.points, 'activates_at', loyalty_iso(p.activates_at), 'status', p.status, 'details', p.details,
              'created_at', loyalty_iso(p.created_at), 'updated_at', loyalty_iso(p.updated_at))
      $$`);
  }
}
