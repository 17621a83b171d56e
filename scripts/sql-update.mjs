#!/usr/bin/env node
/**
 * Regenerates what the SQL checks compare with (docs/architecture.md, "SQL functions" and "SQL statements"):
 *
 *   npm run sql:update                      writes src/database/queries.sql, the statements of src, by running
 *                                           test/e2e/sql-sources.e2e-spec.ts with SQL_INVENTORY=write (it needs the
 *                                           test database, as `npm test` does)
 *   npm run sql:update -- <Migration> …     first pins the SQL functions each named migration applies (the keys
 *                                           of its `sqlFunctions`) to their files as they are now
 *
 * Pin only a migration that no database has run yet: the one you are adding, or the one a merge brings. A
 * function file changed after a released migration needs a new migration that re-applies it; re-pinning the
 * released one would hide the change from every database that already ran it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const migrations = new URL('../src/database/migrations/', import.meta.url);
const PINS = /(static readonly sqlFunctions: SqlFunctionPins = \{)([^}]*)(\})/;

execFileSync(process.execPath, ['scripts/build-if-needed.mjs'], { cwd: root, stdio: 'inherit' });
const { sqlFunctionPin } = await import('../dist/database/sql-functions.js');

for (const name of process.argv.slice(2)) {
  const file = readdirSync(migrations).find((f) => f.endsWith('.ts') && readFileSync(new URL(f, migrations), 'utf8').includes(`export class ${name} `));
  if (!file) throw new Error(`no migration class ${name} in src/database/migrations/`);
  const source = readFileSync(new URL(file, migrations), 'utf8');
  const block = PINS.exec(source);
  if (!block) throw new Error(`${file} declares no \`static readonly sqlFunctions: SqlFunctionPins = { <function>: '', … }\``);
  const pinned = block[2].replace(/(\w+): '[0-9a-f]*'/g, (_, fn) => {
    const pin = sqlFunctionPin(fn);
    console.log(`${name}: ${fn} pinned to ${pin}`);
    return `${fn}: '${pin}'`;
  });
  writeFileSync(new URL(file, migrations), source.replace(PINS, `$1${pinned}$3`));
}

const jest = spawnSync(
  process.execPath,
  ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning', 'node_modules/jest/bin/jest.js', '--runInBand', 'test/e2e/sql-sources.e2e-spec.ts'],
  { cwd: root, env: { ...process.env, SQL_INVENTORY: 'write', TEST_GROUPS: 'off' }, stdio: 'inherit' },
);
process.exitCode = jest.status ?? 1;
