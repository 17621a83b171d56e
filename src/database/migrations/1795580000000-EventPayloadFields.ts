import type { MigrationInterface, QueryRunner } from 'typeorm';
import { applySqlFunctions, type SqlFunctionPins } from '../sql-functions.js';
import { lockCardsOf } from './lock-cards.js';

/**
 * Issue 29: the events' customer, campaign, order and card leave out the fields they have no value for
 * (Voucherify's schemas type them as plain strings; the caller's metadata is kept as it is). Orders keep their items marked `object: "order_item"`
 * (as answered and as the events carry them; marking them in the event's function would need a sub-select,
 * which stops PostgreSQL from inlining it into the activation statement): existing orders' items are marked here.
 * A pending entry's `details.earning_rule.source` leaves out `banner` when the rule has none (it was stored as
 * null), in the entries and in the activation rows that carry them whole. Events already sent stay as sent.
 */
export class EventPayloadFields1795580000000 implements MigrationInterface {
  name = 'EventPayloadFields1795580000000';
  /** The SQL functions it applies, pinned to their files as they were (docs/architecture.md, "SQL functions"). */
  static readonly sqlFunctions: SqlFunctionPins = {
    loyalty_customer_json: 'c49e65245a4962fb082d45fa97e9d2bb3c05169dcd38b2a323855b0af4e00b72',
    loyalty_campaign_json: '37917987b59d99b9a811456ed771070d6377e74b7fea458c31c74fadebb71d56',
    loyalty_order_json: 'a3642f7b601cc4e3fe184b71523f827b050d5e3947bab6244706378983f70060',
    loyalty_voucher_json: '401cc5814569a56944f9559c24f2b32021eb5846dbb788e21098d619c50a7a92',
  };

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      UPDATE orders o SET items = (SELECT jsonb_agg(i || '{"object": "order_item"}'::jsonb ORDER BY n) FROM jsonb_array_elements(o.items) WITH ORDINALITY AS e(i, n))
      WHERE jsonb_typeof(o.items) = 'array' AND jsonb_array_length(o.items) > 0`);
    // Orders first, then their cards, then the entries and ledger rows: the order of a paid order's request.
    await lockCardsOf(
      queryRunner,
      `SELECT voucher_id FROM loyalty_pending_points WHERE details -> 'earning_rule' -> 'source' -> 'banner' = 'null'::jsonb
       UNION SELECT voucher_id FROM voucher_transactions
             WHERE type = 'PENDING_POINTS_ACTIVATION' AND details::jsonb -> 'pending_points' -> 'details' -> 'earning_rule' -> 'source' -> 'banner' = 'null'::jsonb`,
    );
    await queryRunner.query(`
      UPDATE loyalty_pending_points SET details = details #- '{earning_rule,source,banner}'
      WHERE details -> 'earning_rule' -> 'source' -> 'banner' = 'null'::jsonb`);
    await queryRunner.query(`
      UPDATE voucher_transactions SET details = (details::jsonb #- '{pending_points,details,earning_rule,source,banner}')::json
      WHERE type = 'PENDING_POINTS_ACTIVATION' AND details::jsonb -> 'pending_points' -> 'details' -> 'earning_rule' -> 'source' -> 'banner' = 'null'::jsonb`);
    await applySqlFunctions(queryRunner, EventPayloadFields1795580000000.sqlFunctions);
  }

  public async down(): Promise<void> {
    // The earlier definitions live in git history; re-applying them would need their text here.
  }
}
