import type { MigrationInterface, QueryRunner } from 'typeorm';
import { applySqlFunctions, type SqlFunctionPins } from '../sql-functions.js';

/**
 * Issue 36: events have a size bound. `loyalty_event_fit` (with `loyalty_json_put`) cuts an event over
 * EVENT_PAYLOAD_MAX_BYTES (docs/webhooks.md, "Size of an event"), and the pending-points events carry their
 * order as a summary of its first 10 items (`loyalty_order_json`). Events already recorded stay as they are.
 */
export class BoundedEvents1795620000000 implements MigrationInterface {
  name = 'BoundedEvents1795620000000';
  /** The SQL functions it applies, pinned to their files as they were (docs/architecture.md, "SQL functions"). */
  static readonly sqlFunctions: SqlFunctionPins = {
    loyalty_order_json: 'f872255c8fb318f60f714a74ebf50bbaff5886448ee9dd18945cfd6f1e5bfb39',
    loyalty_json_put: 'a129675ff04533072b747cf1eb7d127ab0d358a87a4b051fb1a89c37d23810ba',
    loyalty_event_fit: 'de164f33b8118d84fc6106a481be4b120c38ae926865ae7dc8bd3c467cf97a95',
  };

  public async up(queryRunner: QueryRunner): Promise<void> {
    await applySqlFunctions(queryRunner, BoundedEvents1795620000000.sqlFunctions);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP FUNCTION IF EXISTS "loyalty_event_fit"(json, int)');
    await queryRunner.query('DROP FUNCTION IF EXISTS "loyalty_json_put"(json, text[], json, json)');
    // loyalty_order_json's earlier definition lives in git history.
  }
}
