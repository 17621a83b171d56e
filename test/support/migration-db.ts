import { DataSource, type MigrationInterface } from 'typeorm';
import { dataSourceOptions } from '../../src/app/database/database.options.js';
import { dropDatabase, ensureDatabase } from '../../src/database/ensure-database.js';
import { MIGRATIONS } from '../../src/database/migrations/index.js';
import { testConfig } from './harness.js';

type MigrationClass = new () => MigrationInterface;

export interface MigrationDatabase {
  /** The migrations before the one under test, in order. */
  readonly before: MigrationClass[];
  /** Creates the database, migrates it up to the migration under test (not included), then `fill` writes rows as a database of that time held them. */
  fill(fill: (db: DataSource) => Promise<void>): Promise<void>;
  /** Opens the database knowing `migrations` (all of them by default) and runs `work` on it; `work` runs them (`runMigrations`). */
  open<T>(work: (db: DataSource) => Promise<T>, migrations?: MigrationClass[]): Promise<T>;
}

/**
 * A database of its own for the test of one migration on existing data (`<run's database>_<suffix>`), dropped
 * after the suite (registered as its afterAll): migrated up to the migration before, filled by SQL as the
 * earlier schema allows, then migrated and checked.
 */
export function useMigrationDatabase(suffix: string, migration: MigrationClass): MigrationDatabase {
  const base = testConfig();
  const url = new URL(base.databaseUrl);
  url.pathname = `${url.pathname}_${suffix}`;
  const config = { ...base, databaseUrl: url.toString() };
  const before: MigrationClass[] = MIGRATIONS.slice(0, (MIGRATIONS as MigrationClass[]).indexOf(migration));
  afterAll(() => dropDatabase(config.databaseUrl));

  const open = async <T>(work: (db: DataSource) => Promise<T>, migrations?: MigrationClass[]): Promise<T> => {
    const db = new DataSource({ ...dataSourceOptions(config, 'loyalty-migration-test', 1), ...(migrations ? { migrations } : {}) });
    await db.initialize();
    try {
      return await work(db);
    } finally {
      await db.destroy();
    }
  };
  return {
    before,
    open,
    fill: async (fill) => {
      await ensureDatabase(config.databaseUrl);
      await open(async (db) => {
        await db.runMigrations();
        await fill(db);
      }, before);
    },
  };
}
