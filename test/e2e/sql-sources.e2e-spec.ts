import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import ts from 'typescript';
import { type PreparedStatement } from '../../src/database/prepared.js';
import { SQL_FUNCTIONS, sqlFunctionText } from '../../src/database/sql-functions.js';
import { memberPageQuery } from '../../src/members/member-page.sql.js';
import { testConfig } from '../support/harness.js';

/**
 * The SQL the service keeps as text agrees with the migrated schema:
 * - the database's functions are exactly src/database/functions/*.sql (a function changed in a migration
 *   but not in its file, or a file changed without being applied, fails here);
 * - every statement written in src parses and type-checks against the schema (PREPARE), without running:
 *   the statements written as literals are read from the sources, their `${…}` pieces evaluated in their
 *   file (its constants, its imports, its exports: a builder called with literal arguments, a prepared
 *   statement); statements built from pieces are also imported (every `prepared(…)` statement of a module is
 *   exported for this) or built (the member list's page). What cannot be evaluated without a request or a
 *   caller is listed in PER_CALL, so that a new one is a conscious addition.
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

/**
 * Statements whose pieces come from the call: columns or conditions a request chooses, or a builder's
 * parameter (the builder's statement is checked where a caller gives it literal arguments, and through the
 * prepared statements made with it). Each is covered by the e2e tests of its routes.
 */
const PER_CALL = [
  'cards/card-issue.repository.ts: WITH ins AS (${insert} RETURNING 1)',
  'customers/customer.repository.ts: INSERT INTO customers (id, project_id, source_id${',
  'events/delivery/delivery.sql.ts: SELECT c.id, c.project_id',
  'events/recording/event-recording.ts: INSERT INTO events',
  'members/member-page.sql.ts: SELECT page.* FROM loyalty_programs p',
  'points/orders/order.repository.ts: INSERT INTO orders (id, project_id, source_id, status, amount${',
  'points/orders/order.repository.ts: UPDATE orders SET ${',
  'points/pending/pending-points.repository.ts: SELECT ${COLUMNS} FROM loyalty_pending_points WHERE ${where',
];

const SQL_VERB = /^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\s/;

/**
 * A file's names as its code sees them: its top-level constants (evaluated on first use), what it imports
 * from modules of src, and its exports. Used as the scope of a statement's `${…}` pieces.
 */
async function fileScope(file: string, sourceFile: ts.SourceFile): Promise<object> {
  const known = new Map<string, unknown>(Object.entries((await import(file)) as Record<string, unknown>));
  const pending = new Map<string, string>();
  for (const statement of sourceFile.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier) && statement.moduleSpecifier.text.startsWith('.')) {
      const imported = (await import(join(file, '..', statement.moduleSpecifier.text.replace(/\.js$/, '.ts')))) as Record<string, unknown>;
      const bindings = statement.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) for (const element of bindings.elements) known.set(element.name.text, imported[(element.propertyName ?? element.name).text]);
    }
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name) && declaration.initializer && !known.has(declaration.name.text)) pending.set(declaration.name.text, jsOf(declaration.initializer, sourceFile));
      }
    }
  }
  const scope: object = new Proxy(
    {},
    {
      has: (_, name) => typeof name === 'string' && (known.has(name) || pending.has(name)),
      get: (_, name) => {
        if (typeof name !== 'string') return undefined;
        if (!known.has(name) && pending.has(name)) known.set(name, evaluate(pending.get(name) as string, scope));
        return known.get(name);
      },
    },
  );
  return scope;
}

/** The JavaScript of a TypeScript expression (types stripped). */
function jsOf(node: ts.Node, sourceFile: ts.SourceFile): string {
  return ts
    .transpile(`(${node.getText(sourceFile)})`, { target: ts.ScriptTarget.ES2022 })
    .replace(/^\s*"use strict";/, '')
    .trim()
    .replace(/;$/, '');
}

function evaluate(js: string, scope: object): unknown {
  // A sloppy-mode function: `with` resolves the expression's names in the file's scope.
  return new Function('scope', `with (scope) { return ${js}; }`)(scope);
}

/** The statements written as literals in src (outermost only), their pieces evaluated in their file. */
async function literalStatements(): Promise<{ statements: Statement[]; perCall: string[] }> {
  const statements: Statement[] = [];
  const perCall: string[] = [];
  for (const file of sourceFiles()) {
    const source = readFileSync(file, 'utf8');
    const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.ES2022, true);
    const found: ts.Node[] = [];
    const visit = (node: ts.Node): void => {
      if ((ts.isTemplateExpression(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isStringLiteral(node)) && SQL_VERB.test(ts.isTemplateExpression(node) ? node.head.text : node.text)) {
        found.push(node);
        return; // a template inside it is a piece of this statement
      }
      ts.forEachChild(node, visit);
    };
    visit(sourceFile);
    if (!found.length) continue;
    const scope = await fileScope(file, sourceFile);
    for (const node of found) {
      const where = `${relative(SRC, file)}:${sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line + 1}`;
      try {
        statements.push({ where, text: String(evaluate(jsOf(node, sourceFile), scope)) });
      } catch {
        perCall.push(`${relative(SRC, file)}: ${node.getText(sourceFile).slice(1).trim().replace(/\s+/g, ' ')}`);
      }
    }
  }
  return { statements, perCall };
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
    const literals = await literalStatements();
    // What could not be evaluated is exactly the known per-call statements.
    expect(literals.perCall.map((text) => PER_CALL.find((start) => text.startsWith(start)) ?? text).sort()).toEqual([...PER_CALL].sort());
    const statements = [...literals.statements, ...(await preparedStatements()), ...memberPages()];
    expect(statements.length).toBeGreaterThan(90);
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
