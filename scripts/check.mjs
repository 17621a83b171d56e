/**
 * The type-check and ESLint in one process, on one TypeScript program per tsconfig (`npm test` runs it beside
 * jest; `npm run typecheck` and `npm run lint` are the same checks one at a time). Run apart, `tsc` and
 * ESLint's type-aware rules each build and type-check the same sources, about two fifths of their CPU twice;
 * here ESLint's rules reuse the programs, and the types their checker already resolved, through typescript-
 * eslint's `parserOptions.programs`. The rules are eslint.config.js's, unchanged.
 *
 * Which files are type-checked is what `tsc -p tsconfig.json` and `tsc -p dashboard/tsconfig.json` check: the
 * service's program is tsconfig.eslint.json's (tsconfig.json with the .mjs files ESLint lints, as JavaScript),
 * and its diagnostics are read for tsconfig.json's files only. Exits 1 on any type error or lint error.
 */
import { resolve } from 'node:path';
import { ESLint } from 'eslint';
import ts from 'typescript';

const root = resolve(import.meta.dirname, '..');

function parsed(configPath) {
  const host = {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  };
  return ts.getParsedCommandLineOfConfigFile(resolve(root, configPath), {}, host);
}

function program(configPath) {
  const config = parsed(configPath);
  const created = ts.createProgram({ rootNames: config.fileNames, options: { ...config.options, noEmit: true }, configFileParsingDiagnostics: config.errors });
  return { program: created, errors: config.errors };
}

/** What tsc reports for `files` of `program` (all of them when `files` is undefined): options, globals, then each file's. */
function typeErrors({ program, errors }, files) {
  const checked = program.getSourceFiles().filter((file) => (files ? files.has(file.fileName) : !file.isDeclarationFile));
  return [
    ...errors,
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...checked.flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]),
  ];
}

const service = program('tsconfig.eslint.json');
const dashboard = program('dashboard/tsconfig.json');
const diagnostics = [...typeErrors(service, new Set(parsed('tsconfig.json').fileNames)), ...typeErrors(dashboard)];
const format = process.stdout.isTTY ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics;
const host = { getCanonicalFileName: (name) => name, getCurrentDirectory: () => root, getNewLine: () => '\n' };
if (diagnostics.length) process.stdout.write(`${format(diagnostics, host)}\nType-check: ${diagnostics.length} error(s)\n`);

const eslint = new ESLint({ cwd: root, overrideConfig: { languageOptions: { parserOptions: { programs: [service.program, dashboard.program] } } } });
const results = await eslint.lintFiles(['.']);
const lintErrors = results.reduce((sum, result) => sum + result.errorCount + result.fatalErrorCount, 0);
const report = await (await eslint.loadFormatter('stylish')).format(results);
if (report) process.stdout.write(report);

process.exitCode = diagnostics.length || lintErrors ? 1 : 0;
