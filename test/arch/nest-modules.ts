import ts from 'typescript';
import type { SourceFile } from './source-tree.js';

/**
 * The Nest module graph, read from the syntax: a module is a class decorated with `@Module`; its metadata is
 * the decorator's object, every object literal of its file with `module: <it>` (what a `forRoot` returns),
 * and `workerFeature(<it>, {...})` (processors count as providers). Names in `imports`, `controllers` and
 * `providers` are resolved through the file's own consts (`...FEATURES`) and through consts made by
 * `workerFeature` (`PointsWorker` → PointsWorkerModule). Class names are unique in src/ (checked).
 */
export interface NestModule {
  name: string;
  file: string;
  imports: Set<string>;
  controllers: Set<string>;
  providers: Set<string>;
}

export interface NestGraph {
  modules: Map<string, NestModule>;
  /** Every class of src/: name → file. */
  classes: Map<string, string>;
  /** Classes decorated with @Controller. */
  controllers: Map<string, string>;
  /** Classes decorated with @QueueWorker, @WorkerSweep or @WorkerLoopProvider: they run only in a worker. */
  workerParts: Map<string, string>;
  /** The modules `root` imports, directly or not, itself included. */
  closure(root: string): Set<string>;
}

const decoratorName = (decorator: ts.Decorator) => {
  const call = decorator.expression;
  return ts.isCallExpression(call) && ts.isIdentifier(call.expression) ? call.expression.text : null;
};

/** Identifiers used as values in an expression (not property names, not keys of object literals). */
function namesIn(node: ts.Node, consts: Map<string, ts.Expression>, seen = new Set<string>()): string[] {
  const names: string[] = [];
  const visit = (child: ts.Node) => {
    if (ts.isIdentifier(child)) {
      const parent = child.parent;
      if (ts.isPropertyAccessExpression(parent) && parent.name === child) return;
      if (ts.isPropertyAssignment(parent) && parent.name === child) return;
      const local = consts.get(child.text);
      if (local && !seen.has(child.text)) {
        seen.add(child.text);
        names.push(...namesIn(local, consts, seen));
      } else names.push(child.text);
      return;
    }
    ts.forEachChild(child, visit);
  };
  visit(node);
  return names;
}

export function readNestGraph(files: Iterable<SourceFile>): NestGraph {
  const modules = new Map<string, NestModule>();
  const classes = new Map<string, string>();
  const controllers = new Map<string, string>();
  const workerParts = new Map<string, string>();
  const aliases = new Map<string, string>();
  const metadata: { module: string; object: ts.ObjectLiteralExpression; consts: Map<string, ts.Expression> }[] = [];

  for (const file of files) {
    const consts = new Map<string, ts.Expression>();
    const visit = (node: ts.Node) => {
      if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) {
        consts.set(node.name.text, node.initializer);
        const init = node.initializer;
        if (ts.isCallExpression(init) && ts.isIdentifier(init.expression) && init.expression.text === 'workerFeature' && ts.isIdentifier(init.arguments[0])) {
          aliases.set(node.name.text, init.arguments[0].text);
        }
      }
      if (ts.isClassDeclaration(node) && node.name) {
        const name = node.name.text;
        if (classes.has(name) && classes.get(name) !== file.path) throw new Error(`class ${name} is declared in ${classes.get(name)} and ${file.path}: class names are unique in src/ (OpenAPI names schemas by class; this test finds modules by name)`);
        classes.set(name, file.path);
        for (const decorator of ts.getDecorators(node) ?? []) {
          const kind = decoratorName(decorator);
          const args = (decorator.expression as ts.CallExpression).arguments ?? [];
          if (kind === 'Module') {
            modules.set(name, { name, file: file.path, imports: new Set(), controllers: new Set(), providers: new Set() });
            if (args[0] && ts.isObjectLiteralExpression(args[0])) metadata.push({ module: name, object: args[0], consts });
          }
          if (kind === 'Controller') controllers.set(name, file.path);
          if (kind === 'QueueWorker' || kind === 'WorkerSweep' || kind === 'WorkerLoopProvider') workerParts.set(name, file.path);
        }
      }
      if (ts.isObjectLiteralExpression(node)) {
        const module = node.properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && p.name.text === 'module');
        if (module && ts.isIdentifier(module.initializer)) metadata.push({ module: module.initializer.text, object: node, consts });
      }
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'workerFeature') {
        const [module, object] = node.arguments;
        if (module && ts.isIdentifier(module) && object && ts.isObjectLiteralExpression(object)) metadata.push({ module: module.text, object, consts });
      }
      ts.forEachChild(node, visit);
    };
    visit(file.ast);
  }

  const moduleOf = (name: string) => {
    const target = aliases.get(name) ?? name;
    return modules.has(target) ? target : null;
  };
  for (const { module, object, consts } of metadata) {
    const entry = modules.get(module);
    if (!entry) continue;
    for (const property of object.properties) {
      if (!ts.isPropertyAssignment(property) || !ts.isIdentifier(property.name)) continue;
      const key = property.name.text;
      for (const name of namesIn(property.initializer, consts)) {
        const target = moduleOf(name);
        if (key === 'imports' && target) entry.imports.add(target);
        if (key === 'controllers') entry.controllers.add(name);
        if ((key === 'providers' || key === 'processors') && classes.has(name)) entry.providers.add(name);
      }
    }
  }
  const closure = (root: string) => {
    const seen = new Set<string>();
    const stack = [root];
    while (stack.length) {
      const name = stack.pop() as string;
      if (seen.has(name)) continue;
      seen.add(name);
      stack.push(...(modules.get(name)?.imports ?? []));
    }
    return seen;
  };
  return { modules, classes, controllers, workerParts, closure };
}
