import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { type PreparedStatement } from '../../src/database/prepared.js';
import { SQL_FUNCTIONS, sqlFunctionText } from '../../src/database/sql-functions.js';
import { memberPageQuery } from '../../src/members/member-page.sql.js';
import { testConfig } from '../support/harness.js';

/**
 * The SQL the service keeps as text agrees with the migrated schema:
 * - the database's functions are exactly src/database/functions/*.sql (a function changed in a migration
 *   but not in its file, or a file changed without being applied, fails here);
 * - every statement written in src parses and type-checks against the schema (PREPARE), without running:
 *   literal statements are read from the sources, statements built from pieces are imported (every
 *   `prepared(…)` statement of a module is exported for this) or built (the member list's page).
 */

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return entry === 'migrations' ? [] : sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
  });
}

interface Statement {
  where: string;
  text: string;
}

/** String literals of the sources that are a whole statement: an upper-case verb first, no `${…}` piece. */
function literalStatements(): Statement[] {
  const literal = /`([^`]*)`|'((?:[^'\\\n]|\\.)*)'/g;
  const statements: Statement[] = [];
  for (const file of sourceFiles()) {
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(literal)) {
      const text = match[1] ?? match[2];
      if (!/^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\s/.test(text) || text.includes('${')) continue;
      statements.push({ where: `${relative(SRC, file)}:${source.slice(0, match.index).split('\n').length}`, text });
    }
  }
  return statements;
}

/** The exported `prepared(…)` statements of every module that makes one; a module that keeps one unexported fails. */
async function preparedStatements(): Promise<Statement[]> {
  const statements: Statement[] = [];
  const unexported: string[] = [];
  for (const file of sourceFiles()) {
    const source = readFileSync(file, 'utf8');
    if (!/^(export )?const \w+ = prepared\(/m.test(source)) continue;
    for (const match of source.matchAll(/^const (\w+) = prepared\(/gm)) unexported.push(`${relative(SRC, file)}: ${match[1]}`);
    const module = (await import(file)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) {
      if (value && typeof value === 'object' && 'name' in value && 'text' in value) statements.push({ where: `${relative(SRC, file)}: ${name}`, text: (value as PreparedStatement).text });
    }
  }
  expect(unexported).toEqual([]);
  return statements;
}

/** Pages of the member list: one with every kind of filter, a status and a cursor, one without. */
function memberPages(): Statement[] {
  const at = new Date('2026-01-01T00:00:00Z');
  const sort = [
    { column: 'status' as const, desc: false },
    { column: 'created_at' as const, desc: true },
    { column: 'id' as const, desc: true },
  ];
  const conditions = [
    { column: 'id' as const, op: 'in' as const, values: ['lmbr_1', 'lmbr_2'] },
    { column: 'status' as const, op: 'not_in' as const, values: ['INACTIVE'] },
    { column: 'customer_id' as const, op: 'in' as const, values: ['cust_1'] },
  ];
  const dates = [
    { column: 'created_at' as const, op: 'before' as const, at },
    { column: 'created_at' as const, op: 'on_day' as const, from: at, until: at },
    { column: 'created_at' as const, op: 'days_more_than' as const, days: 3 },
    { column: 'created_at' as const, op: 'has_value' as const },
  ];
  const filters = { junction: 'OR' as const, fields: [{ field: 'id' as const, conditions }, { field: 'created_at' as const, conditions: dates }] };
  return [
    { where: 'members/member-page.sql.ts: filtered page', text: memberPageQuery('proj_1', 'camp_1', sort, filters, ['ACTIVE', at, 'lmbr_1'], 10, 'ACTIVE').text },
    { where: 'members/member-page.sql.ts: first page', text: memberPageQuery('proj_1', 'camp_1', [{ column: 'id', desc: false }], { junction: 'AND', fields: [] }, null, 10, null).text },
  ];
}

describe('SQL kept as text against the migrated schema', () => {
  let client: pg.Client;

  beforeAll(async () => {
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
    const statements = [...literalStatements(), ...(await preparedStatements()), ...memberPages()];
    expect(statements.length).toBeGreaterThan(50);
    const failures: string[] = [];
    for (const [i, statement] of statements.entries()) {
      try {
        await client.query(`PREPARE sql_source_check_${i} AS ${statement.text}`);
        await client.query(`DEALLOCATE sql_source_check_${i}`);
      } catch (error) {
        failures.push(`${statement.where}: ${(error as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
