import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import type { PreparedStatement } from '../../src/database/prepared.js';
import { memberPageQuery } from '../../src/members/member-page.sql.js';

/**
 * The statements written in src, as test/e2e/sql-sources.e2e-spec.ts PREPAREs them and src/database/queries.sql
 * lists them: every SQL literal (outermost only), its `${…}` pieces evaluated in its file (its constants, its
 * imports, its exports: a builder called with literal arguments, a prepared statement); every exported
 * `prepared(…)` statement (a module that keeps one unexported fails); and the member list's pages, built.
 * A literal whose pieces come from the call (a request's columns or conditions, a builder's parameter) cannot
 * be evaluated: it is returned `perCall`, its text as written.
 */
export interface SqlStatement {
  /** Its file, relative to src/. */
  file: string;
  /** Where it is in its file: the constant, property, class and method it sits in (several when one text is written or exported under more than one). */
  names: string[];
  /** Its offset in the file, for the order of the inventory. */
  at: number;
  text: string;
  /** The name given to `prepared(…)`, without the hash of its text. */
  prepared?: string;
  perCall?: boolean;
}

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const SQL_VERB = /^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\s/;

function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((entry) => {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) return entry === 'migrations' ? [] : sourceFiles(path);
      return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
    });
}

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

/**
 * The named declarations a node sits in, outermost first: `LOCK`, `OrderRepository.save`, `SQL.customer`
 * (a function's own local constants are left out: they name a result more often than a statement).
 */
function enclosingName(node: ts.Node): string {
  const names: string[] = [];
  for (let at = node.parent; at; at = at.parent) {
    const named = (at as { name?: ts.Node }).name;
    const topLevelConstant = ts.isVariableDeclaration(at) && ts.isSourceFile(at.parent.parent.parent);
    const declaration = topLevelConstant || ts.isPropertyAssignment(at) || ts.isPropertyDeclaration(at) || ts.isMethodDeclaration(at) || ts.isFunctionDeclaration(at) || ts.isClassDeclaration(at) || ts.isGetAccessorDeclaration(at);
    if (declaration && named && (ts.isIdentifier(named) || ts.isStringLiteral(named))) names.unshift(named.text);
  }
  return names.join('.') || '(module)';
}

/** The literals of one file that start with an SQL verb (outermost only), evaluated where they can be. */
async function literals(file: string): Promise<SqlStatement[]> {
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
  if (!found.length) return [];
  const scope = await fileScope(file, sourceFile);
  return found.map((node) => {
    const at = { file: relative(SRC, file), names: [enclosingName(node)], at: node.getStart(sourceFile) };
    try {
      return { ...at, text: String(evaluate(jsOf(node, sourceFile), scope)) };
    } catch {
      return { ...at, text: node.getText(sourceFile).slice(1, -1), perCall: true };
    }
  });
}

/** The exported `prepared(…)` statements of one file; the names of those it keeps unexported. */
async function preparedOf(file: string): Promise<{ statements: SqlStatement[]; unexported: string[] }> {
  const source = readFileSync(file, 'utf8');
  if (!/^(export )?const \w+ = prepared\(/m.test(source)) return { statements: [], unexported: [] };
  const unexported = [...source.matchAll(/^const (\w+) = prepared\(/gm)].map((match) => `${relative(SRC, file)}: ${match[1]}`);
  const statements = Object.entries((await import(file)) as Record<string, unknown>).flatMap(([name, value]) => {
    if (!value || typeof value !== 'object' || !('name' in value) || !('text' in value)) return [];
    const statement = value as PreparedStatement;
    return [{ file: relative(SRC, file), names: [name], at: source.search(new RegExp(`^export const ${name} = `, 'm')), text: statement.text, prepared: statement.name.replace(/_[0-9a-f]{8}$/, '') }];
  });
  return { statements, unexported };
}

/** Pages of the member list: one with every kind of filter, a status and a cursor, one without. */
function memberPages(): SqlStatement[] {
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
  const file = 'members/member-page.sql.ts';
  return [
    { file, names: ['memberPageQuery(a filtered page: every kind of filter, a status, a cursor)'], at: Infinity, text: memberPageQuery('proj_1', 'camp_1', sort, filters, ['ACTIVE', at, 'lmbr_1'], 10, 'ACTIVE').text },
    { file, names: ['memberPageQuery(a first page)'], at: Infinity, text: memberPageQuery('proj_1', 'camp_1', [{ column: 'id', desc: false }], { junction: 'AND', fields: [] }, null, 10, null).text },
  ];
}

/**
 * Every statement of src, by file (in path order) and place in the file. One text written or exported under
 * several names in a file is one statement with those names; the piece a prepared statement of the same name
 * is built around (`RECORD = prepared('…', eventsInsertSql(\`SELECT …\`))`) is part of it, not a statement.
 */
export async function srcStatements(): Promise<{ statements: SqlStatement[]; unexportedPrepared: string[] }> {
  const statements: SqlStatement[] = [];
  const unexportedPrepared: string[] = [];
  for (const file of sourceFiles()) {
    const own = await literals(file);
    const made = await preparedOf(file);
    unexportedPrepared.push(...made.unexported);
    const all = [...own.filter((literal) => !made.statements.some((p) => p.names[0] === literal.names[0] && p.text !== literal.text && p.text.includes(literal.text))), ...made.statements];
    const merged: SqlStatement[] = [];
    for (const statement of all) {
      const same = merged.find((m) => m.text === statement.text && m.perCall === statement.perCall);
      if (!same) merged.push({ ...statement });
      else {
        same.names = [...new Set([...same.names, ...statement.names])];
        same.prepared ??= statement.prepared;
        same.at = Math.min(same.at, statement.at);
      }
    }
    statements.push(...merged.sort((a, b) => a.at - b.at));
    if (relative(SRC, file) === 'members/member-page.sql.ts') statements.push(...memberPages());
  }
  return { statements, unexportedPrepared };
}
