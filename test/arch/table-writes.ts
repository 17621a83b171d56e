import ts from 'typescript';
import type { SourceFile, SqlFile } from './source-tree.js';

/** One write of a table found in a file: `INSERT INTO vouchers` at line 32, or `getRepository(LoyaltyCard).update`. */
export interface TableWrite {
  table: string;
  line: number;
  how: string;
}

/** A statement that writes a table, in any case, the table optionally quoted or schema-qualified. */
const SQL_WRITE = /\b(INSERT\s+INTO|UPDATE(?:\s+ONLY)?|DELETE\s+FROM|MERGE\s+INTO|TRUNCATE(?:\s+TABLE)?|COPY)\s+(?:"?public"?\.)?"?([a-z_][a-z0-9_]*)"?/gi;

/** TypeORM calls that write (on a repository, an entity manager or a query builder). */
const TYPEORM_WRITES = new Set(['insert', 'update', 'upsert', 'save', 'delete', 'remove', 'softDelete', 'softRemove', 'restore', 'recover', 'increment', 'decrement', 'into', 'clear']);

/** SQL writes of `tables` in a text (a string literal of a .ts file, or a .sql file), with their lines. */
export function sqlWrites(text: string, firstLine: number, tables: Set<string>): TableWrite[] {
  const writes: TableWrite[] = [];
  for (const match of text.matchAll(SQL_WRITE)) {
    const table = match[2].toLowerCase();
    if (!tables.has(table)) continue;
    const line = firstLine + (text.slice(0, match.index).match(/\n/g)?.length ?? 0);
    writes.push({ table, line, how: match[0].replace(/\s+/g, ' ') });
  }
  return writes;
}

export function sqlFileWrites(file: SqlFile, tables: Set<string>): TableWrite[] {
  return sqlWrites(file.text, 1, tables);
}

/** `@Entity({ name: 'vouchers' })` / `@Entity('vouchers')`: entity class → table, over the tree. */
export function entityTables(files: Iterable<SourceFile>): Map<string, string> {
  const tables = new Map<string, string>();
  for (const file of files) {
    const visit = (node: ts.Node) => {
      if (ts.isClassDeclaration(node) && node.name) {
        for (const decorator of ts.getDecorators(node) ?? []) {
          const call = decorator.expression;
          if (!ts.isCallExpression(call) || !ts.isIdentifier(call.expression) || call.expression.text !== 'Entity') continue;
          const [arg] = call.arguments;
          if (arg && ts.isStringLiteral(arg)) tables.set(node.name.text, arg.text);
          if (arg && ts.isObjectLiteralExpression(arg)) {
            const name = arg.properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && p.name.text === 'name');
            if (name && ts.isStringLiteral(name.initializer)) tables.set(node.name.text, name.initializer.text);
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file.ast);
  }
  return tables;
}

/**
 * TypeORM writes of the entities in `entities` (class → table): a write call whose arguments name the entity
 * (`manager.insert(LoyaltyCard, …)`, `.update(LoyaltyCard)`, `.into(LoyaltyCard)`, `.delete().from(LoyaltyCard)`),
 * or whose receiver is, or holds, a repository of it (`getRepository(LoyaltyCard).update(…)`, a variable or
 * field initialised so, typed `Repository<LoyaltyCard>` or injected with `@InjectRepository(LoyaltyCard)`).
 * Syntax only: an entity reached through a name it was not bound to here goes unseen, which review covers.
 */
export function typeormWrites(file: SourceFile, entities: Map<string, string>): TableWrite[] {
  const ast = file.ast;
  const entity = (node: ts.Node | undefined) => (node && ts.isIdentifier(node) ? (entities.get(node.text) ?? null) : null);
  const unwrap = (node: ts.Expression): ts.Expression =>
    ts.isAwaitExpression(node) || ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isNonNullExpression(node) ? unwrap(node.expression) : node;
  const calleeName = (call: ts.CallExpression) =>
    ts.isIdentifier(call.expression) ? call.expression.text : ts.isPropertyAccessExpression(call.expression) ? call.expression.name.text : null;
  /** `getRepository(E)`, `Repository<E>`, `@InjectRepository(E)`: the table of E, else null. */
  const repositoryOf = (node: ts.Node | undefined): string | null => {
    if (!node) return null;
    if (ts.isDecorator(node)) return repositoryOf(node.expression);
    if (ts.isTypeReferenceNode(node)) return ts.isIdentifier(node.typeName) && node.typeName.text === 'Repository' ? entity(node.typeArguments?.[0] && ts.isTypeReferenceNode(node.typeArguments[0]) ? node.typeArguments[0].typeName : undefined) : null;
    if (!ts.isExpression(node)) return null;
    const expression = unwrap(node);
    if (!ts.isCallExpression(expression)) return null;
    const name = calleeName(expression);
    return name === 'getRepository' || name === 'InjectRepository' ? entity(expression.arguments[0]) : null;
  };
  // Names (variables, parameters, fields) that hold a repository of a guarded entity.
  const bound = new Map<string, string>();
  const collect = (node: ts.Node) => {
    if ((ts.isVariableDeclaration(node) || ts.isParameter(node) || ts.isPropertyDeclaration(node)) && ts.isIdentifier(node.name)) {
      const decorators = ts.canHaveDecorators(node) ? (ts.getDecorators(node) ?? []) : [];
      const table = [node.type, node.initializer, ...decorators].map(repositoryOf).find(Boolean);
      if (table) bound.set(node.name.text, table);
    }
    ts.forEachChild(node, collect);
  };
  collect(ast);

  /** The table a call chain writes: an entity argument of a call in it, a repository of one, or a bound name. */
  const chainTable = (node: ts.Expression): string | null => {
    node = unwrap(node);
    if (ts.isIdentifier(node)) return bound.get(node.text) ?? null;
    if (ts.isPropertyAccessExpression(node)) return bound.get(node.name.text) ?? chainTable(node.expression);
    if (ts.isCallExpression(node)) {
      return node.arguments.map(entity).find(Boolean) ?? (ts.isPropertyAccessExpression(node.expression) ? chainTable(node.expression.expression) : null);
    }
    return null;
  };
  const chainHas = (node: ts.Expression, method: string): boolean =>
    ts.isCallExpression(node) ? calleeName(node) === method || chainHas(node.expression, method) : ts.isPropertyAccessExpression(node) ? chainHas(node.expression, method) : false;

  const writes: TableWrite[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      if (TYPEORM_WRITES.has(method) || (method === 'from' && chainHas(node.expression.expression, 'delete'))) {
        const table = chainTable(node);
        if (table) writes.push({ table, line: ast.getLineAndCharacterOfPosition(node.getStart(ast)).line + 1, how: `TypeORM .${method}()` });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(ast);
  return writes;
}
