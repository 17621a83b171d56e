import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import ts from 'typescript';

/**
 * What the architecture test reads of src/: every TypeScript file parsed once (syntax only, no type checker,
 * so the whole tree takes about a second), its imports resolved to files, its string literals, the
 * places it names `forwardRef` or reads `process.env`, and the Nest modules it declares; and the SQL files.
 */
export interface SourceFile {
  /** Relative to the repository: `src/points/ledger/ledger.repository.ts`. */
  path: string;
  /** The top folder under src/ (`points`), or the file's own name for a file at src/'s root (`main.ts`). */
  folder: string;
  /** Imports of other files of src/ (value and type imports, re-exports, `import()`). */
  imports: { target: string; line: number }[];
  /** Package imports (value or type) by specifier (`typeorm`), with the line of the first. */
  packages: Map<string, number>;
  /** String and template literals (a template's placeholders as `$?`), with their lines. */
  strings: { text: string; line: number }[];
  forwardRefs: number[];
  envReads: number[];
  ast: ts.SourceFile;
}

export interface SqlFile {
  path: string;
  /** The file without its `--` comments. */
  text: string;
}

export const ROOT = normalize(join(dirname(new URL(import.meta.url).pathname), '..', '..'));

function walk(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) walk(path, out);
    else out.push(path);
  }
  return out.sort();
}

const lineOf = (file: ts.SourceFile, node: ts.Node) => file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;

/** `./x.js` from `src/a/b.ts` → `src/a/x.ts` (or `x/index.ts`), if that file exists; else null. */
function resolve(from: string, specifier: string, known: Set<string>): string | null {
  const base = normalize(join(dirname(from), specifier)).replace(/\.js$/, '');
  for (const candidate of [`${base}.ts`, `${base}.d.ts`, `${base}/index.ts`, base]) if (known.has(candidate)) return candidate;
  return null;
}

/** Parses one file's text; `known` are the files its relative imports may resolve to. */
export function parseSource(path: string, text: string, known: Set<string>): SourceFile {
  const ast = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const top = path.split('/')[1];
  const file: SourceFile = {
    path,
    folder: top,
    imports: [],
    packages: new Map(),
    strings: [],
    forwardRefs: [],
    envReads: [],
    ast,
  };
  const addImport = (specifier: string, node: ts.Node) => {
    const line = lineOf(ast, node);
    if (specifier.endsWith('.json')) return; // data, not code of the house
    if (specifier.startsWith('.')) {
      const target = resolve(path, specifier, known);
      if (!target) throw new Error(`${path}:${line}: cannot resolve '${specifier}'`);
      file.imports.push({ target, line });
    } else if (!file.packages.has(specifier)) file.packages.set(specifier, line);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      addImport(node.moduleSpecifier.text, node);
      if (node.moduleSpecifier.text === 'node:process' || node.moduleSpecifier.text === 'process') {
        const named = clause?.namedBindings;
        if (named && ts.isNamedImports(named) && named.elements.some((e) => (e.propertyName ?? e.name).text === 'env')) file.envReads.push(lineOf(ast, node));
        if (clause?.name || (named && ts.isNamespaceImport(named))) file.envReads.push(lineOf(ast, node));
      }
      return; // its specifier is not a string of the file's own
    }
    if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      addImport(node.moduleSpecifier.text, node);
      return;
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      addImport(node.arguments[0].text, node);
      return;
    }
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      addImport(node.argument.literal.text, node);
      return;
    }
    if (ts.isIdentifier(node) && node.text === 'forwardRef') file.forwardRefs.push(lineOf(ast, node));
    // process.env, process['env'], const { env } = process
    if (ts.isPropertyAccessExpression(node) && isProcess(node.expression) && node.name.text === 'env') file.envReads.push(lineOf(ast, node));
    if (ts.isElementAccessExpression(node) && isProcess(node.expression) && ts.isStringLiteralLike(node.argumentExpression) && node.argumentExpression.text === 'env') file.envReads.push(lineOf(ast, node));
    if (ts.isVariableDeclaration(node) && node.initializer && isProcess(node.initializer) && ts.isObjectBindingPattern(node.name)) {
      if (node.name.elements.some((e) => ((e.propertyName ?? e.name) as ts.Identifier).text === 'env')) file.envReads.push(lineOf(ast, node));
    }
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) file.strings.push({ text: node.text, line: lineOf(ast, node) });
    if (ts.isTemplateExpression(node)) {
      file.strings.push({ text: [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join('$?'), line: lineOf(ast, node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(ast);
  return file;
}

const isProcess = (node: ts.Expression) => ts.isIdentifier(node) && node.text === 'process';

export interface SourceTree {
  files: Map<string, SourceFile>;
  sql: SqlFile[];
  /** Every folder of src/ (top level), and the files at its root. */
  folders: Set<string>;
}

/** Reads src/ once. Unit specs (`*.spec.ts`) are left out: they are tests, not the house. */
export function readSourceTree(): SourceTree {
  const all = walk('src');
  const tsFiles = all.filter((path) => path.endsWith('.ts') && !path.endsWith('.spec.ts'));
  const known = new Set(tsFiles);
  const files = new Map(tsFiles.map((path) => [path, parseSource(path, readFileSync(join(ROOT, path), 'utf8'), known)]));
  const sql = all
    .filter((path) => path.endsWith('.sql'))
    .map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8').replace(/--[^\n]*/g, '') }));
  return { files, sql, folders: new Set(tsFiles.map((path) => path.split('/')[1])) };
}
