import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { QueryRunner } from 'typeorm';

/**
 * The schema's SQL functions, each kept as its current definition in functions/<name>.sql (one
 * `CREATE OR REPLACE FUNCTION`), in an order in which each finds the ones it calls. The files are copied
 * next to the compiled code (scripts/compile.mjs), so dist/ reads dist/database/functions/.
 *
 * Changing a function: edit its file and add a migration that re-applies it (`applySqlFunctions`) with its
 * pin, so that databases migrated before the change get it; sql-functions.spec.ts fails while the newest
 * migration that applies a function pins another text than its file, and test/e2e/sql-sources.e2e-spec.ts
 * checks that the migrated database holds exactly these definitions. A changed argument list is a new
 * function to PostgreSQL: that migration drops the old one first.
 */
export const SQL_FUNCTIONS = [
  'loyalty_time_id',
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
 * The functions a migration applies, each with its pin: the `sqlFunctionPin` of its file when the migration
 * was written. A migration keeps them as `static readonly sqlFunctions` and hands them to `applySqlFunctions`.
 */
export type SqlFunctionPins = Readonly<Partial<Record<SqlFunctionName, string>>>;

/**
 * A file's pin: the SHA-256 (hex) of its text from `CREATE OR REPLACE FUNCTION` to the end, the statement
 * PostgreSQL runs. The comment lines above it never reach the database, so editing them needs no migration.
 */
export function sqlFunctionPin(name: SqlFunctionName): string {
  const text = sqlFunctionText(name);
  return createHash('sha256').update(text.slice(text.indexOf('CREATE OR REPLACE FUNCTION'))).digest('hex');
}

/**
 * Applies the current files of the pinned functions (in the order of SQL_FUNCTIONS). A migration of the past
 * runs today's file, whatever its pin says: the pin records what it applied when it was written, and only the
 * newest migration that applies a function must pin today's file (sql-functions.spec.ts), which it then
 * applies last. Today's file may call a column or function a later migration brings: bodies are checked
 * when called, not when created (as pg_dump restores them), and the later migration that re-applies the
 * file finds its schema complete.
 */
export async function applySqlFunctions(queryRunner: QueryRunner, pins: SqlFunctionPins): Promise<void> {
  const [{ before }] = await queryRunner.query(`SELECT set_config('check_function_bodies', 'off', true), current_setting('check_function_bodies') AS before`);
  for (const name of SQL_FUNCTIONS) if (pins[name] !== undefined) await queryRunner.query(sqlFunctionText(name));
  await queryRunner.query(`SELECT set_config('check_function_bodies', $1, true)`, [before]);
}
