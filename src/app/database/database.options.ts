import type { DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../../config/app-config.js';
import { ENTITIES } from './entities.js';
import { MIGRATIONS } from '../../database/migrations/index.js';

export type DatabaseLimits = Pick<AppConfig, 'databaseUrl' | 'databaseQueryTimeoutMs'> & Partial<Pick<AppConfig, 'databaseLockTimeoutMs' | 'databasePool' | 'pendingPointsDayMs'>>;

/**
 * One definition of the connection for the API, the worker, the CLI and the tests. Every wait is bounded
 * on purpose, and each bound has its own answer (docs/operations.md, "A busy database"):
 * - a free connection of the pool: `databasePool.waitMs`, then 503 `database_busy`;
 * - a row lock: `lock_timeout`, then 503 `database_busy` (PostgreSQL cancels only the waiting statement);
 * - a statement: `statement_timeout` on the server (the statement is cancelled there, its locks freed),
 *   and the client's `query_timeout` a second later for a half-open connection that never answers;
 * - a new connection: 2 s, then 503 `service_unavailable` (PostgreSQL is down or unreachable).
 */
export function dataSourceOptions(config: DatabaseLimits, applicationName = 'loyalty', poolSize = config.databasePool?.size ?? 10): DataSourceOptions {
  const statementMs = config.databaseQueryTimeoutMs;
  const lockMs = config.databaseLockTimeoutMs ?? 0;
  return {
    type: 'postgres',
    url: config.databaseUrl,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    synchronize: false,
    migrationsRun: false,
    applicationName,
    poolSize,
    // pg-pool uses one setting for both waits: for a free client of a full pool (its "timeout exceeded when
    // trying to connect") and for a new connection ("Connection terminated due to connection timeout").
    connectTimeoutMS: config.databasePool?.waitMs ?? 2_000,
    extra: {
      ...(statementMs > 0 ? { statement_timeout: statementMs, query_timeout: statementMs + 1_000 } : {}),
      ...(lockMs > 0 ? { lock_timeout: lockMs } : {}),
      keepAlive: true,
      // The length of a day for the SQL that dates point buckets (loyalty_points_expire_after.sql): tests
      // shorten it as they shorten a pending period.
      ...(config.pendingPointsDayMs !== undefined ? { options: `-c loyalty.day_ms=${config.pendingPointsDayMs}` } : {}),
    },
  };
}
