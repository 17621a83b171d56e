import type { MigrationInterface, QueryRunner } from 'typeorm';
import { applySqlFunctions, type SqlFunctionPins } from '../sql-functions.js';

/**
 * Issue 27: every SQL function's current definition moves out of the migrations that made it into
 * src/database/functions/<name>.sql, which this applies. The definitions are those in force; only the
 * whitespace of their bodies changes, so down restores nothing. It applies the eight functions there were
 * then (issue 37 pinned them; it applied every file of SQL_FUNCTIONS, which listed those eight); functions
 * added since are made by the migrations that brought them.
 */
export class FunctionFiles1795540000000 implements MigrationInterface {
  name = 'FunctionFiles1795540000000';
  /** The SQL functions it applies, pinned to their files as they were (docs/architecture.md, "SQL functions"). */
  static readonly sqlFunctions: SqlFunctionPins = {
    loyalty_iso: 'fb78a4a86eacaec4c00f3dbcb311d2050f3d6d01a433d5484e8259afb9880f58',
    loyalty_customer_json: '61ae27d800f6e93d8f67c53b8d55c9d88e4e56bcde3820639fe0c89c006637c0',
    loyalty_campaign_json: '6c5932683188b4cb2d39ea9c22d5a213ad955af7093e7b1dc3ef2e77b73b064b',
    loyalty_order_json: 'f6cde70afbe38b215738dea9600ac3877e7e99736fbaa7e96c0eaddf81290e5f',
    loyalty_voucher_json: 'aed8525ab1a084767a7a1e313f29af57f599f866e16c2c2d9395a79df9835a1d',
    loyalty_pending_points_json: '6cfa1e889bb064f2f697629ae3382d44fe109dd5b92adc7e98633806c9357e13',
    vouchers_initial_points_ledger: '61ced93930ad2a5a50a81e54ecf1fd721cf3674a27e00f090fadb5f846db9370',
    events_outbox: '4ace633df756defe19b84703b9daf2e1112c0e91e16adec80d5ed206123965c5',
  };

  public async up(queryRunner: QueryRunner): Promise<void> {
    await applySqlFunctions(queryRunner, FunctionFiles1795540000000.sqlFunctions);
  }

  public async down(): Promise<void> {}
}
