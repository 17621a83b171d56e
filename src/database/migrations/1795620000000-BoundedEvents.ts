import type { MigrationInterface, QueryRunner } from 'typeorm';
import { applySqlFunctions } from '../sql-functions.js';

/**
 * Issue 36: events have a size bound. `loyalty_event_fit` (with `loyalty_json_put`) cuts an event over
 * EVENT_PAYLOAD_MAX_BYTES (docs/webhooks.md, "Size of an event"), and the pending-points events carry their
 * order as a summary of its first 10 items (`loyalty_order_json`). Events already recorded stay as they are.
 */
export class BoundedEvents1795620000000 implements MigrationInterface {
  name = 'BoundedEvents1795620000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await applySqlFunctions(queryRunner, ['loyalty_order_json', 'loyalty_json_put', 'loyalty_event_fit']);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP FUNCTION IF EXISTS "loyalty_event_fit"(json, int)');
    await queryRunner.query('DROP FUNCTION IF EXISTS "loyalty_json_put"(json, text[], json, json)');
    // loyalty_order_json's earlier definition lives in git history.
  }
}
