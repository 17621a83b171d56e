import type { MigrationInterface, QueryRunner } from 'typeorm';
import { applySqlFunctions, type SqlFunctionPins } from '../sql-functions.js';
import { lockCardsOf } from './lock-cards.js';

/** The PENDING entries whose earning rule has no banner (left out since issue 29, or null before it). */
const WITHOUT_BANNER = `status = 'PENDING' AND jsonb_typeof(details -> 'earning_rule' -> 'source') = 'object'
  AND jsonb_typeof(details -> 'earning_rule' -> 'source' -> 'banner') IS DISTINCT FROM 'string'`;

/**
 * Issue 37: the events keep their types' schemas.
 * - `loyalty_voucher_json` takes the card's next expiration (`next_expiration_date`, `next_expiration_points`,
 *   Voucherify's SimpleLoyaltyCard), which the activation statement computes for each entry; a new argument
 *   list is a new function, so the old one is dropped first.
 * - A pending entry names its earning rule's banner, an empty one when the rule has none (Voucherify's
 *   `details.earning_rule.source` requires it): the PENDING entries made before get it, since their events
 *   (updated, canceled, activated) and the lists are still to come. Settled entries, the ledger rows that
 *   copied them and the events already sent stay as they were.
 */
export class EventContract1795700000000 implements MigrationInterface {
  name = 'EventContract1795700000000';
  static readonly sqlFunctions: SqlFunctionPins = {
    loyalty_voucher_json: '6107db2f6f98cffd372c3c607f4d2148c74723d91b37526eb1b7abe9e186ef67',
  };

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION IF EXISTS "loyalty_voucher_json"("vouchers", text, bigint, bigint, bigint, boolean)`);
    await applySqlFunctions(queryRunner, EventContract1795700000000.sqlFunctions);
    await lockCardsOf(queryRunner, `SELECT voucher_id FROM loyalty_pending_points WHERE ${WITHOUT_BANNER}`);
    await queryRunner.query(`UPDATE loyalty_pending_points SET details = jsonb_set(details, '{earning_rule,source,banner}', '""') WHERE ${WITHOUT_BANNER}`);
  }

  /** The function as it was; the banners stay (an empty one is a string to the code before too). */
  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION IF EXISTS "loyalty_voucher_json"("vouchers", text, bigint, bigint, bigint, date, bigint, boolean)`);
    await queryRunner.query(`
      CREATE FUNCTION "loyalty_voucher_json"(v "vouchers", campaign_name text, points bigint, balance bigint, pending_points bigint, active boolean)
      RETURNS json LANGUAGE sql STABLE AS $$
          SELECT json_strip_nulls(json_build_object('id', v.id, 'code', v.code, 'type', 'LOYALTY_CARD', 'campaign', campaign_name, 'campaign_id', v.campaign_id,
              'holder_id', v.holder_id, 'loyalty_card', json_build_object('points', points, 'balance', balance, 'pending_points', pending_points),
              'is_referral_code', false, 'active', coalesce(active, false), 'metadata', '{}'::json, 'created_at', loyalty_iso(v.created_at),
              'updated_at', loyalty_iso(v.updated_at), 'object', 'voucher'))
      $$`);
  }
}
