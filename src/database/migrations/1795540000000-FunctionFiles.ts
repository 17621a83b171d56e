import type { MigrationInterface, QueryRunner } from 'typeorm';
import { applySqlFunctions, SQL_FUNCTIONS } from '../sql-functions.js';

/**
 * Issue 27: every SQL function's current definition moves out of the migrations that made it into
 * src/database/functions/<name>.sql, which this applies. The definitions are those in force; only the
 * whitespace of their bodies changes, so down restores nothing.
 */
export class FunctionFiles1795540000000 implements MigrationInterface {
  name = 'FunctionFiles1795540000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await applySqlFunctions(queryRunner, SQL_FUNCTIONS);
  }

  public async down(): Promise<void> {}
}
