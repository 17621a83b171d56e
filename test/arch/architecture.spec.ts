import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import ts from 'typescript';
import { SQL_ELSEWHERE, SQL_PLACES, TABLE_OWNERS, TABLE_PIECES, TABLE_WRITERS, WRITERS_NOT_SEARCHED } from './allow-lists.js';
import { readNestGraph } from './nest-modules.js';
import { parseSource, ROOT, readSourceTree, type SourceFile } from './source-tree.js';
import { entityTables, sqlFileWrites, sqlWrites, type TableWrite, typeormWrites } from './table-writes.js';

/**
 * The house's written rules, checked: the floors of docs/architecture.md ("Layers"), no import cycle, no
 * forwardRef, controllers only on the API's side and worker parts only on the worker's, the writers of the
 * point tables, SQL only in repositories, process.env only in src/config. Reads src/ once, by syntax (no
 * compilation): about a second. docs/architecture.md ("Layout") says where a new file goes.
 */
const tree = readSourceTree();
const files = [...tree.files.values()];
const nest = readNestGraph(files);
const LAYERS = 'docs/architecture.md, "Layers"';

/** Fails with every finding on its own line, and how to fix them. */
function expectNone(findings: string[], fix: string): void {
  const unique = [...new Set(findings)];
  if (unique.length) throw new Error(`${unique.length} finding(s):\n  ${unique.join('\n  ')}\n\n${fix}`);
}

interface Floors {
  /** Folder (`points`, `main.ts`) → its floor's name and its rank (0 = highest). */
  of: Map<string, { floor: string; rank: number }>;
  composition: Set<string>;
  entry: Set<string>;
}

/** The Layers table: `| floor | \`a/\`, \`b/\` → \`c/\` | rule |`, floors highest first. */
function readFloors(): Floors {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const section = doc.split(/^## /m).find((part) => part.startsWith('Layers'));
  if (!section) throw new Error(`${LAYERS}: section not found`);
  const rows = section.split('\n').filter((line) => line.startsWith('|')).slice(2);
  const floors: Floors = { of: new Map(), composition: new Set(), entry: new Set() };
  let rank = 0;
  for (const row of rows) {
    const [floor, folders] = row.split('|').slice(1, 3).map((cell) => cell.trim());
    if (!/^`[^`]+`(\s*(,|→)\s*`[^`]+`)*$/.test(folders)) throw new Error(`${LAYERS}: the folders of floor '${floor}' should be \`names\` joined by ',' and '→', not: ${folders}`);
    for (const group of folders.split('→')) {
      for (const [, name] of group.matchAll(/`([^`]+)`/g)) {
        const folder = name.replace(/\/$/, '');
        if (floors.of.has(folder)) throw new Error(`${LAYERS}: ${name} is listed twice`);
        floors.of.set(folder, { floor, rank });
        if (floor === 'entry') floors.entry.add(folder);
        if (floor === 'composition') floors.composition.add(folder);
      }
      rank += 1;
    }
  }
  return floors;
}

/** Strongly connected components of more than one node (Tarjan): the import cycles. */
function cycles(nodes: Iterable<string>, edges: (node: string) => Iterable<string>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (node: string) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of edges(node)) {
      if (!index.has(to)) {
        connect(to);
        low.set(node, Math.min(low.get(node) as number, low.get(to) as number));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node) as number, index.get(to) as number));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of nodes) if (!index.has(node)) connect(node);
  return found;
}

/** One shortest cycle through a component's first node: `a → b → a`, and how many nodes the component has. */
function showCycle(component: string[], edges: (node: string) => Iterable<string>): string {
  const inside = new Set(component);
  const [start] = component;
  const parent = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const node = queue.shift() as string;
    for (const to of edges(node)) {
      if (!inside.has(to) || parent.has(to)) continue;
      parent.set(to, node);
      if (to === start) queue.length = 0;
      else queue.push(to);
    }
  }
  const path = [start];
  for (let at = parent.get(start) as string; at !== start; at = parent.get(at) as string) path.unshift(at);
  path.unshift(start);
  return `${path.join(' → ')}${component.length > path.length - 1 ? ` (${component.length} in the circle in all: ${component.join(', ')})` : ''}`;
}

/** Files reachable by imports from `start`, each with the file it was first reached from. */
function reachable(start: string): Map<string, string | null> {
  const from = new Map<string, string | null>([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const path = queue.shift() as string;
    for (const { target } of tree.files.get(path)?.imports ?? []) {
      if (!from.has(target)) {
        from.set(target, path);
        queue.push(target);
      }
    }
  }
  return from;
}

const pathTo = (from: Map<string, string | null>, file: string) => {
  const path = [file];
  for (let at = from.get(file); at; at = from.get(at)) path.unshift(at);
  return path.join(' → ');
};

describe(`floors (${LAYERS})`, () => {
  let floors: Floors;
  beforeAll(() => (floors = readFloors()));

  it('lists every folder of src/, and only those', () => {
    const missing = [...tree.folders].filter((folder) => !floors.of.has(folder)).map((folder) => `src/${folder} stands on no floor`);
    const gone = [...floors.of.keys()].filter((folder) => !tree.folders.has(folder)).map((folder) => `${folder} is in the table but not in src/`);
    expectNone([...missing, ...gone], `Add a new folder to the table in ${LAYERS} (on the floor of what it imports, above it), and take a removed one out.`);
  });

  it('each folder imports only folders below it; the entry files only the composition', () => {
    const findings: string[] = [];
    for (const file of files) {
      const from = floors.of.get(file.folder);
      if (!from) continue;
      for (const { target, line } of file.imports) {
        const folder = target.split('/')[1];
        const to = floors.of.get(folder);
        if (!to || folder === file.folder) continue;
        if (floors.entry.has(file.folder) ? !floors.composition.has(folder) : to.rank <= from.rank) {
          const where = to.rank < from.rank ? 'above it' : to.rank === from.rank ? 'beside it' : 'not the composition';
          findings.push(`${file.path}:${line} imports ${target}: ${file.folder} (${from.floor}) may not import ${folder} (${to.floor}, ${where})`);
        }
      }
    }
    expectNone(
      findings,
      `Imports point down the table of ${LAYERS}. Move what both sides need down (common/ for what no feature owns), ` +
        'ask the lower feature through a token the composition binds (app/feature-questions.module.ts), or, if the ' +
        'folder really stands elsewhere, change the table (and say why in docs/decisions.md).',
    );
  });

  it('no two folders import each other, directly or not', () => {
    const edges = new Map<string, Set<string>>();
    for (const file of files) for (const { target } of file.imports) edges.set(file.folder, (edges.get(file.folder) ?? new Set()).add(target.split('/')[1]));
    const next = (folder: string) => [...(edges.get(folder) ?? [])].filter((to) => to !== folder);
    const found = cycles(tree.folders, next);
    expectNone(found.map((cycle) => `folders in a circle: ${showCycle(cycle, next)}`), `See ${LAYERS}.`);
  });
});

describe('imports', () => {
  it('no cycle between files (entities included)', () => {
    const next = (path: string) => (tree.files.get(path) as SourceFile).imports.map((i) => i.target);
    const found = cycles(tree.files.keys(), next);
    expectNone(
      found.map((cycle) => `files in a circle: ${showCycle(cycle, next)}`),
      'Break it: what both files need goes into a third file both import; an entity that needs another one\'s relation names it by its ' +
        'entity name (card.entity.ts) or keeps a plain column and lets the repository join (campaign.entity.ts).',
    );
  });

  it('no forwardRef', () => {
    const findings = files.flatMap((file) => file.forwardRefs.map((line) => `${file.path}:${line} uses forwardRef`));
    expectNone(findings, 'forwardRef hides a cycle between modules or providers: break the cycle instead (see the test above).');
  });
});

describe('API and worker (docs/architecture.md, "Processes")', () => {
  const api = nest.closure('ApiModule');
  const worker = nest.closure('WorkerModule');
  const workerModules = [...worker].filter((name) => !api.has(name));

  it('reads both roots', () => {
    expect(api.size).toBeGreaterThan(10);
    expect(workerModules).toContain('PointsWorkerModule');
  });

  it('a controller is registered only in modules the API root imports, never in a worker module', () => {
    const findings: string[] = [];
    for (const [controller, file] of nest.controllers) {
      const modules = [...nest.modules.values()].filter((module) => module.controllers.has(controller));
      if (!modules.length) findings.push(`${controller} (${file}) is in no module's controllers`);
      for (const module of modules) if (!api.has(module.name)) findings.push(`${controller} (${file}) is registered in ${module.name} (${module.file}), which ApiModule does not import`);
    }
    for (const module of nest.modules.values()) {
      const workerSide = workerModules.includes(module.name) || module.file.endsWith('-worker.module.ts');
      if (workerSide && module.controllers.size) findings.push(`the worker module ${module.name} (${module.file}) registers controllers: ${[...module.controllers].join(', ')}`);
    }
    expectNone(findings, 'Register a controller in its feature module (or its `<feature>-api.module.ts`), which ApiModule imports; a worker module has none.');
  });

  it('processors, sweeps and loops are provided only by worker modules', () => {
    const findings: string[] = [];
    for (const module of nest.modules.values()) {
      if (!api.has(module.name)) continue;
      for (const provider of module.providers) {
        if (nest.workerParts.has(provider)) findings.push(`${provider} (${nest.workerParts.get(provider)}) is provided by ${module.name} (${module.file}), which ApiModule imports: the API process would run it`);
      }
    }
    expectNone(findings, "Provide it in the feature's `<feature>-worker.module.ts` (workerFeature), which only WorkerModule imports.");
  });

  it('the API process imports no worker-only file', () => {
    // Worker only: the worker modules, what only they provide, processors, sweeps and loops, and worker/ folders.
    const apiProvided = new Set([...api].flatMap((name) => [...(nest.modules.get(name)?.providers ?? [])]));
    const workerOnly = new Map<string, string>();
    for (const name of workerModules) {
      const module = nest.modules.get(name);
      if (!module) continue;
      workerOnly.set(module.file, `${name}, a worker module`);
      for (const provider of module.providers) if (!apiProvided.has(provider)) workerOnly.set(nest.classes.get(provider) as string, `${provider}, provided by ${name} only`);
    }
    for (const [part, file] of nest.workerParts) workerOnly.set(file, `${part}, a processor, sweep or loop`);
    for (const file of files) if (file.path.includes('/worker/') || file.path.endsWith('-worker.module.ts')) workerOnly.set(file.path, 'in the worker\'s part of its feature');
    const fromApi = reachable('src/main.ts');
    const findings = [...workerOnly].filter(([file]) => fromApi.has(file)).map(([file, why]) => `${file} (${why}) is imported by the API process: ${pathTo(fromApi, file)}`);
    expect(fromApi.has('src/app/api.module.ts')).toBe(true);
    expectNone(findings, 'What the API and the worker share goes outside the worker side (the feature module, or a file both import); the API never loads worker code.');
  });
});

describe('who writes the point tables (docs/architecture.md, "Who writes the point tables")', () => {
  const tables = new Set(Object.keys(TABLE_WRITERS));
  const entities = new Map([...entityTables(files)].filter(([, table]) => tables.has(table)));
  const searched = (path: string) => !WRITERS_NOT_SEARCHED.some((prefix) => path.startsWith(prefix));
  const writes = new Map<string, TableWrite[]>();
  for (const file of files.filter((f) => searched(f.path))) {
    const found = [...file.strings.flatMap((s) => sqlWrites(s.text, s.line, tables)), ...typeormWrites(file, entities)];
    if (found.length) writes.set(file.path, found);
  }
  for (const file of tree.sql.filter((f) => searched(f.path))) {
    const found = sqlFileWrites(file, tables);
    if (found.length) writes.set(file.path, found);
  }

  it('knows the entity of each table', () => {
    expect([...entities.values()].sort()).toEqual([...tables].sort());
  });

  it.each(Object.keys(TABLE_WRITERS))('%s: these files, and no others', (table) => {
    const listed = TABLE_WRITERS[table];
    const findings: string[] = [];
    for (const [path, found] of writes) {
      const write = found.find((w) => w.table === table);
      if (write && !listed.includes(path)) findings.push(`${path}:${write.line} writes ${table} (${write.how}) but is not one of its writers`);
    }
    for (const path of listed) if (!writes.get(path)?.some((w) => w.table === table)) findings.push(`${path} is listed as a writer of ${table} but writes it no longer`);
    expectNone(
      findings,
      `The writers of ${table} are listed in test/arch/allow-lists.ts (TABLE_WRITERS.${table}). Ask its owner, ${TABLE_OWNERS[table]}, ` +
        'to write it (in your transaction, under the cards\' lock), or, if this file must write it itself, add it to the list with the reason; ' +
        'take a file that no longer writes off the list.',
    );
  });
});

describe('the owners\' SQL pieces that write a point table inside other statements', () => {
  /** Named imports of a file (`name` from the file it resolves to), as `<file> <name>`. */
  const importsOf = (file: SourceFile): Set<string> => {
    const found = new Set<string>();
    for (const statement of file.ast.statements) {
      if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
      const bindings = statement.importClause?.namedBindings;
      if (!bindings || !ts.isNamedImports(bindings)) continue;
      const target = normalize(join(dirname(file.path), statement.moduleSpecifier.text)).replace(/\.js$/, '.ts');
      for (const element of bindings.elements) found.add(`${target} ${(element.propertyName ?? element.name).text}`);
    }
    return found;
  };
  const imports = new Map(files.map((file) => [file.path, importsOf(file)]));

  it.each(TABLE_PIECES.map((piece) => [piece.name, piece] as const))('%s: imported by these files, and no others', (_, piece) => {
    const importers = files.filter((file) => imports.get(file.path)?.has(`${piece.owner} ${piece.name}`)).map((file) => file.path);
    expect(importers.sort()).toEqual([...piece.importers].sort());
  });
});

describe('the write detectors see what they are meant to, and nothing else', () => {
  const entities = new Map([['LoyaltyCard', 'vouchers'], ['VoucherTransaction', 'voucher_transactions']]);
  const tables = new Set(entities.values());
  const writesIn = (text: string) => {
    const file = parseSource('src/x/x.ts', text, new Set());
    return [...file.strings.flatMap((s) => sqlWrites(s.text, s.line, tables)), ...typeormWrites(file, entities)].map((w) => `${w.line} ${w.table}`);
  };

  it('SQL text: any case, quoted, inside a CTE, on its line', () => {
    expect(writesIn('const a = `\n  WITH x AS (\n    update "vouchers" v SET balance = 0 RETURNING v.id)\n  SELECT 1`;')).toEqual(['3 vouchers']);
    expect(writesIn("const b = 'INSERT INTO public.voucher_transactions (id) VALUES ($1)'; const c = 'DELETE FROM vouchers';")).toEqual(['1 voucher_transactions', '1 vouchers']);
    expect(writesIn("const d = 'SELECT * FROM vouchers FOR UPDATE'; const e = 'INSERT INTO vouchers_archive (id) VALUES (1)';")).toEqual([]);
  });

  it('TypeORM: through a repository, the manager, a query builder, or a name bound to a repository', () => {
    const text = [
      'class X {',
      '  constructor(@InjectRepository(LoyaltyCard) private readonly cards: Cards, private readonly ds: DataSource, private readonly txs: Repository<VoucherTransaction>) {}',
      '  async go() {',
      "    await this.ds.getRepository(LoyaltyCard).update({ id: 'x' }, { balance: 1 });",
      '    await this.ds.manager.insert(VoucherTransaction, {});',
      '    await this.cards.delete({});',
      '    await this.ds.createQueryBuilder().delete().from(LoyaltyCard).execute();',
      '    const rows = this.ds.getRepository(LoyaltyCard);',
      '    await rows.save({});',
      '    await this.ds.createQueryBuilder().insert().into(VoucherTransaction).values({}).execute();',
      "    await this.ds.createQueryBuilder().select().from(LoyaltyCard, 'v').getMany();",
      '    new Map<string, LoyaltyCard>().delete("x"); createHash("sha1").update(LoyaltyCard.name);',
      '    await this.txs.increment({}, "points", 1);',
      '  }',
      '}',
    ].join('\n');
    expect(writesIn(text)).toEqual(['4 vouchers', '5 voucher_transactions', '6 vouchers', '7 vouchers', '9 vouchers', '10 voucher_transactions', '13 voucher_transactions']);
  });
});

/** SQL statement text: a statement keyword first, or a write or a SELECT … FROM anywhere (upper case, as the house writes SQL). */
const SQL_TEXT = /^\s*(SELECT|INSERT|UPDATE|DELETE|WITH|LOCK|CREATE|ALTER|DROP|LISTEN|UNLISTEN|NOTIFY|SET|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|TRUNCATE|VACUUM|ANALYZE|COPY)\s|\b(INSERT INTO|DELETE FROM)\b|\bUPDATE \w+ SET\b|\bSELECT\b[^;]*\bFROM\b/;
const PERSISTENCE_PACKAGES = /^(typeorm|@nestjs\/typeorm|pg)(\/|$)/;

describe('persistence and configuration', () => {
  it('only repositories (and the places listed) touch TypeORM, pg or SQL', () => {
    const findings: string[] = [];
    for (const file of files) {
      if (SQL_PLACES.some((place) => place.test(file.path)) || SQL_ELSEWHERE[file.path]) continue;
      const packages = [...file.packages].filter(([name]) => PERSISTENCE_PACKAGES.test(name)).map(([name, line]) => `${file.path}:${line} imports ${name}`);
      const sql = file.strings.filter((s) => SQL_TEXT.test(s.text)).map((s) => `${file.path}:${s.line} holds SQL: ${s.text.trim().slice(0, 60)}`);
      findings.push(...packages, ...sql);
    }
    for (const path of Object.keys(SQL_ELSEWHERE)) if (!tree.files.has(path)) findings.push(`${path} is listed in SQL_ELSEWHERE but does not exist`);
    expectNone(findings, 'Move the statement into the feature\'s *.repository.ts (services take its methods), or list the file in SQL_ELSEWHERE of test/arch/allow-lists.ts with the reason.');
  });

  it('nothing outside src/config reads process.env', () => {
    const findings = files.filter((file) => !file.path.startsWith('src/config/')).flatMap((file) => file.envReads.map((line) => `${file.path}:${line} reads process.env`));
    expectNone(findings, 'Add the setting to src/config/environment.ts (validated) and app-config.ts, and take it from AppConfig; document it in README\'s settings table.');
  });
});
