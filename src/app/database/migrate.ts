import { DataSource } from 'typeorm';
import type { AppConfig } from '../../config/app-config.js';
import { dataSourceOptions } from './database.options.js';
import { ensureDatabase } from '../../database/ensure-database.js';

/** Any constant will do, as long as every process of the service uses the same one ("LOYA" in ASCII). */
const MIGRATION_LOCK_KEY = 0x4c4f5941;

/**
 * Creates the database if needed and applies pending migrations while holding a PostgreSQL advisory
 * lock, so an API replica, the launcher and the CLI can all call it at start without racing.
 * Returns the names of the migrations applied.
 *
 * All of it on the session URL (DATABASE_SESSION_URL, docs/scaling.md): the lock is a session's, so it
 * must be held and released on one server connection, which a transaction-mode pooler does not promise.
 */
export async function migrateDatabase(config: Pick<AppConfig, 'databaseUrl'> & Partial<Pick<AppConfig, 'pooling'>>): Promise<string[]> {
  const databaseUrl = config.pooling?.sessionUrl ?? config.databaseUrl;
  await ensureDatabase(databaseUrl);
  // No client-side statement cap: building an index over millions of rows may take longer than a request may.
  const dataSource = new DataSource(dataSourceOptions({ ...config, databaseUrl, databaseQueryTimeoutMs: 0 }, 'loyalty-migrate', 2));
  await dataSource.initialize();
  const lock = dataSource.createQueryRunner();
  try {
    await lock.connect();
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      const applied = await dataSource.runMigrations({ transaction: 'each' });
      return applied.map((m) => m.name);
    } finally {
      await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await lock.release();
    await dataSource.destroy();
  }
}

/**
 * At a process's start: migrates unless MIGRATE_ON_START=false (then `node dist/cli.js migrate`, a Job or an
 * init container, does it). Null when it did not migrate.
 */
export async function migrateOnStart(config: Pick<AppConfig, 'databaseUrl' | 'pooling'>): Promise<string[] | null> {
  return config.pooling.migrateOnStart ? migrateDatabase(config) : null;
}
