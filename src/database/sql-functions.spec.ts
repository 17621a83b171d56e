import { readdirSync, readFileSync } from 'node:fs';
import { MIGRATIONS } from './migrations/index.js';
import { SQL_FUNCTIONS, type SqlFunctionName, type SqlFunctionPins, sqlFunctionPin, sqlFunctionText } from './sql-functions.js';

/**
 * The pins of the SQL functions (docs/architecture.md, "SQL functions"): every test run migrates a fresh
 * database from today's files, so the database cannot tell that a file changed without a migration that
 * re-applies it; the pins can. No database: the migrations' pins against the files.
 */
const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);

/** The migrations that apply functions, oldest first (by their timestamp, as TypeORM runs them). */
function pinning(): { migration: string; pins: SqlFunctionPins }[] {
  const timestamp = (name: string) => Number(/\d+$/.exec(name)?.[0]);
  return [...MIGRATIONS]
    .sort((a, b) => timestamp(a.name) - timestamp(b.name))
    .flatMap((migration) => {
      const pins = (migration as { sqlFunctions?: SqlFunctionPins }).sqlFunctions;
      return pins ? [{ migration: migration.name, pins }] : [];
    });
}

/** Per function, the newest migration that applies it and its pin. */
function newestPins(): Map<SqlFunctionName, { migration: string; pin: string }> {
  const newest = new Map<SqlFunctionName, { migration: string; pin: string }>();
  for (const { migration, pins } of pinning()) {
    for (const [name, pin] of Object.entries(pins) as [SqlFunctionName, string][]) newest.set(name, { migration, pin });
  }
  return newest;
}

describe('SQL function pins', () => {
  it('pins every function file in the newest migration that applies it', () => {
    const newest = newestPins();
    const stale = SQL_FUNCTIONS.flatMap((name) => {
      const pin = sqlFunctionPin(name);
      const last = newest.get(name);
      if (last?.pin === pin) return [];
      const since = last ? `${name}.sql differs from what ${last.migration}, the newest migration that applies it, pinned` : `no migration applies ${name}.sql`;
      return [`${since}: add a migration that re-applies ${name} (applySqlFunctions) and pin its hash, ${name}: '${pin}' (npm run sql:update -- <YourMigration>)`];
    });
    expect(stale).toEqual([]);
  });

  it('keeps pins well-formed, and runs nothing but the function it hashes', () => {
    for (const { migration, pins } of pinning()) {
      for (const [name, pin] of Object.entries(pins)) {
        expect({ migration, name, known: (SQL_FUNCTIONS as readonly string[]).includes(name), pin }).toEqual({ migration, name, known: true, pin: expect.stringMatching(/^[0-9a-f]{64}$/) });
      }
    }
    // What comes before the pinned statement is comments (sql-sources checks one CREATE per file).
    for (const name of SQL_FUNCTIONS) {
      const text = sqlFunctionText(name);
      expect({ name, before: text.slice(0, text.indexOf('CREATE OR REPLACE FUNCTION')).replace(/^\s*(--.*)?$/gm, '').trim() }).toEqual({ name, before: '' });
    }
  });

  it('has every migration that calls applySqlFunctions hand it the pins it declares', () => {
    for (const file of readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.ts'))) {
      const source = readFileSync(new URL(file, MIGRATIONS_DIR), 'utf8');
      const calls = [...source.matchAll(/applySqlFunctions\(\s*\w+,\s*([^)]*)\)/g)].map((m) => m[1].trim());
      const own = /export class (\w+)/.exec(source)?.[1];
      expect({ file, calls: calls.filter((arg) => arg !== `${own}.sqlFunctions`) }).toEqual({ file, calls: [] });
      if (calls.length) expect({ file, declares: /static readonly sqlFunctions: SqlFunctionPins = \{/.test(source) }).toEqual({ file, declares: true });
    }
  });
});
