import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { SQL_FUNCTIONS, sqlFunctionText } from '../../src/database/sql-functions.js';
import { testConfig } from '../support/harness.js';
import { inventory, inventoryDiff } from '../support/sql-inventory.js';
import { type SqlStatement, srcStatements } from '../support/sql-statements.js';

/**
 * The SQL the service keeps as text agrees with the migrated schema, and with its review copy:
 * - the database's functions are exactly src/database/functions/*.sql (a function changed in a migration
 *   but not in its file fails here; a file changed without a migration that re-applies it fails
 *   src/database/sql-functions.spec.ts, by its pin);
 * - every statement written in src (test/support/sql-statements.ts: the literals with their `${…}` pieces
 *   evaluated, the exported prepared statements, the member list's pages) parses and type-checks against
 *   the schema (PREPARE), without running. What cannot be evaluated without a request or a caller is listed
 *   in PER_CALL, so that a new one is a conscious addition;
 * - those statements are src/database/queries.sql, so that a query change is reviewed as SQL. With
 *   SQL_INVENTORY=write (`npm run sql:update`) this test writes that file instead of comparing.
 */

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const INVENTORY = join(SRC, 'database/queries.sql');

/**
 * Statements whose pieces come from the call: columns or conditions a request chooses, or a builder's
 * parameter (the builder's statement is checked where a caller gives it literal arguments, and through the
 * prepared statements made with it). Each is covered by the e2e tests of its routes.
 */
const PER_CALL = [
  'cards/card-issue.repository.ts: WITH ins AS (${insert} RETURNING 1)',
  'cards/card.repository.ts: UPDATE vouchers v SET next_expiration_date = n.day',
  'cards/card.repository.ts: UPDATE vouchers v SET points = v.points + d.points',
  'customers/customer.repository.ts: INSERT INTO customers (id, project_id, source_id${',
  'events/delivery/delivery.sql.ts: SELECT c.id, c.project_id',
  'events/recording/event-recording.ts: INSERT INTO events',
  'members/member-page.sql.ts: SELECT page.* FROM loyalty_programs p',
  'points/buckets/bucket.repository.ts: INSERT INTO loyalty_points_buckets AS b',
  'points/buckets/bucket.repository.ts: SELECT b.expires_at AS d, sum(b.remaining)::bigint AS p FROM loyalty_points_buckets b',
  'points/ledger/ledger.repository.ts: INSERT INTO voucher_transactions (${LEDGER_COLUMNS}) ${select}',
  'points/orders/order.repository.ts: INSERT INTO orders (id, project_id, source_id, status, amount${others.map((c) => `, ${c}`).join(\'\')}) SELECT',
  'points/orders/order.repository.ts: INSERT INTO orders (id, project_id, source_id, status, amount${others.map((c) => `, ${c}`).join(\'\')}) VALUES',
  'points/orders/order.repository.ts: UPDATE orders SET ${',
  'points/pending/pending-points.repository.ts: SELECT ${COLUMNS} FROM loyalty_pending_points WHERE ${where',
];

describe('SQL kept as text against the migrated schema', () => {
  let client: pg.Client;
  let collected: { statements: SqlStatement[]; unexportedPrepared: string[] };

  beforeAll(async () => {
    collected = await srcStatements();
    client = new pg.Client({ connectionString: testConfig().databaseUrl });
    await client.connect();
  });

  afterAll(async () => {
    await client.end();
  });

  it('has one .sql file per function of SQL_FUNCTIONS, and no other function in the schema', async () => {
    const files = readdirSync(join(SRC, 'database/functions')).filter((f) => f.endsWith('.sql'));
    expect(files.map((f) => f.replace(/\.sql$/, '')).sort()).toEqual([...SQL_FUNCTIONS].sort());
    for (const name of SQL_FUNCTIONS) expect(sqlFunctionText(name).match(/CREATE OR REPLACE FUNCTION "(\w+)"/g)).toEqual([`CREATE OR REPLACE FUNCTION "${name}"`]);
    const { rows } = await client.query<{ proname: string }>(
      `SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = 'public' AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')`,
    );
    expect(rows.map((r) => r.proname).sort()).toEqual([...SQL_FUNCTIONS].sort());
  });

  it('holds exactly the definitions of the .sql files', async () => {
    const definitions = async () =>
      (await client.query<{ oid: number; def: string }>(`SELECT p.oid, pg_get_functiondef(p.oid) AS def FROM pg_proc p WHERE p.proname = ANY($1) ORDER BY p.oid`, [SQL_FUNCTIONS])).rows;
    const migrated = await definitions();
    // Applying the files again changes nothing: same functions (no new overload), same definitions.
    await client.query('BEGIN');
    try {
      for (const name of SQL_FUNCTIONS) await client.query(sqlFunctionText(name));
      expect(await definitions()).toEqual(migrated);
    } finally {
      await client.query('ROLLBACK');
    }
  });

  it('prepares every statement written in src', async () => {
    const { statements, unexportedPrepared } = collected;
    expect(unexportedPrepared).toEqual([]);
    // What could not be evaluated is exactly the known per-call statements.
    const perCall = statements.filter((s) => s.perCall).map((s) => `${s.file}: ${s.text.trim().replace(/\s+/g, ' ')}`);
    expect(perCall.map((text) => PER_CALL.find((start) => text.startsWith(start)) ?? text).sort()).toEqual([...PER_CALL].sort());
    const checked = statements.filter((s) => !s.perCall);
    expect(checked.length).toBeGreaterThan(90);
    const failures: string[] = [];
    for (const [i, statement] of checked.entries()) {
      try {
        await client.query(`PREPARE sql_source_check_${i} AS ${statement.text}`);
        await client.query(`DEALLOCATE sql_source_check_${i}`);
      } catch (error) {
        failures.push(`${statement.file}: ${statement.names.join(', ')}: ${(error as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('lists them in src/database/queries.sql, the inventory reviewed with every query change', async () => {
    const current = inventory(collected.statements);
    if (process.env.SQL_INVENTORY === 'write') writeFileSync(INVENTORY, current);
    const committed = readFileSync(INVENTORY, 'utf8');
    const differences = inventoryDiff(committed, current);
    if (differences.length) {
      throw new Error(`src/database/queries.sql is not the statements of src: run \`npm run sql:update\` and commit it with the change.\n\n${differences.join('\n')}`);
    }
  });
});
