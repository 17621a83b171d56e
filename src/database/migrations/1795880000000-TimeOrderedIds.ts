import type { MigrationInterface, QueryRunner } from 'typeorm';
import { applySqlFunctions, type SqlFunctionPins } from '../sql-functions.js';

/**
 * `loyalty_time_id`: the ids of the ledger and the events made in SQL grow with time, so that an activation or
 * expiry batch's thousands of rows are appended at the right edge of their primary keys instead of on random
 * pages (the rows made before keep their ids: ids are opaque, and nothing orders by them).
 */
export class TimeOrderedIds1795880000000 implements MigrationInterface {
  name = 'TimeOrderedIds1795880000000';
  static readonly sqlFunctions: SqlFunctionPins = {
    loyalty_time_id: '31358ce1dd9b92d19580db11bc6426c701383d66d76a19f193c3bc30d63c630b',
  };

  public async up(queryRunner: QueryRunner): Promise<void> {
    await applySqlFunctions(queryRunner, TimeOrderedIds1795880000000.sqlFunctions);
  }

  /** The statements before this migration make their ids without it. */
  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP FUNCTION IF EXISTS "loyalty_time_id"(text)');
  }
}
