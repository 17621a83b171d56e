import { readFileSync } from 'node:fs';
import type { QueryRunner } from 'typeorm';

/**
 * The schema's SQL functions, each kept as its current definition in functions/<name>.sql (one
 * `CREATE OR REPLACE FUNCTION`), in an order in which each finds the ones it calls. The files are copied
 * next to the compiled code (nest-cli.json's assets), so dist/ reads dist/database/functions/.
 *
 * Changing a function: edit its file and add a migration that re-applies it (`applySqlFunctions`), so that
 * databases migrated before the change get it; test/e2e/sql-sources.e2e-spec.ts checks that the migrated
 * database holds exactly these definitions. A changed argument list is a new function to PostgreSQL: that
 * migration drops the old one first.
 */
export const SQL_FUNCTIONS = [
  'loyalty_iso',
  'loyalty_customer_json',
  'loyalty_campaign_json',
  'loyalty_order_json',
  'loyalty_voucher_json',
  'loyalty_pending_points_json',
  'loyalty_json_put',
  'loyalty_event_fit',
  'loyalty_points_expiry_date',
  'loyalty_points_expire_after',
  'vouchers_initial_points_ledger',
  'events_outbox',
] as const;
export type SqlFunctionName = (typeof SQL_FUNCTIONS)[number];

const DIRECTORY = new URL('./functions/', import.meta.url);

export function sqlFunctionText(name: SqlFunctionName): string {
  return readFileSync(new URL(`${name}.sql`, DIRECTORY), 'utf8');
}

/**
 * Applies the current files of these functions. A migration of the past runs today's file, which may call
 * a column or function a later migration brings: bodies are checked when called, not when created (as
 * pg_dump restores them), and the later migration that re-applies the file finds its schema complete.
 */
export async function applySqlFunctions(queryRunner: QueryRunner, names: readonly SqlFunctionName[]): Promise<void> {
  const [{ before }] = await queryRunner.query(`SELECT set_config('check_function_bodies', 'off', true), current_setting('check_function_bodies') AS before`);
  for (const name of names) await queryRunner.query(sqlFunctionText(name));
  await queryRunner.query(`SELECT set_config('check_function_bodies', $1, true)`, [before]);
}
