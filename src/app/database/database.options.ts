import type { DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../../config/app-config.js';
import { ENTITIES } from './entities.js';
import { MIGRATIONS } from '../../database/migrations/index.js';
import { pooledClientClass } from '../../database/pooled-client.js';

export type DatabaseLimits = Pick<AppConfig, 'databaseUrl' | 'databaseQueryTimeoutMs'> & Partial<Pick<AppConfig, 'databaseLockTimeoutMs' | 'databasePool' | 'pendingPointsDayMs' | 'pooling'>>;

/**
 * One definition of the connection for the API, the worker, the CLI and the tests. Every wait is bounded
 * on purpose, and each bound has its own answer (docs/operations.md, "A busy database"):
 * - a free connection of the pool: `databasePool.waitMs`, then 503 `database_busy`;
 * - a row lock: `lock_timeout`, then 503 `database_busy` (PostgreSQL cancels only the waiting statement);
 * - a statement: `statement_timeout` on the server (the statement is cancelled there, its locks freed),
 *   and the client's `query_timeout` a second later for a half-open connection that never answers;
 * - a new connection: 2 s, then 503 `service_unavailable` (PostgreSQL is down or unreachable).
 *
 * Without a pooler the server-side settings are startup parameters of each connection. Behind a pooler in
 * transaction mode (DATABASE_POOLER=transaction, docs/scaling.md) a connection may send none: each
 * transaction sets them with `SET LOCAL` instead (a statement outside a transaction has the client's
 * `query_timeout` only, and whatever the role sets), and named prepared statements follow
 * DATABASE_PREPARED_STATEMENTS.
 */
export function dataSourceOptions(config: DatabaseLimits, applicationName = 'loyalty', poolSize = config.databasePool?.size ?? 10): DataSourceOptions {
  const statementMs = config.databaseQueryTimeoutMs;
  const lockMs = config.databaseLockTimeoutMs ?? 0;
  const settings: Record<string, string> = {
    ...(statementMs > 0 ? { statement_timeout: String(statementMs) } : {}),
    ...(lockMs > 0 ? { lock_timeout: String(lockMs) } : {}),
    // The length of a day for the SQL that dates point buckets (loyalty_points_expire_after.sql): tests
    // shorten it as they shorten a pending period.
    ...(config.pendingPointsDayMs !== undefined ? { 'loyalty.day_ms': String(config.pendingPointsDayMs) } : {}),
  };
  const pooled = config.pooling?.mode === 'transaction';
  const Client = pooledClientClass({ transactionSettings: pooled ? settings : {}, preparedStatements: config.pooling?.preparedStatements ?? true });
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
      ...(statementMs > 0 ? { query_timeout: statementMs + 1_000 } : {}),
      ...(!pooled && statementMs > 0 ? { statement_timeout: statementMs } : {}),
      ...(!pooled && lockMs > 0 ? { lock_timeout: lockMs } : {}),
      keepAlive: true,
      ...(!pooled && config.pendingPointsDayMs !== undefined ? { options: `-c loyalty.day_ms=${config.pendingPointsDayMs}` } : {}),
      ...(Client ? { Client } : {}),
    },
  };
}
