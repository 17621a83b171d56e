import type { DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { ENTITIES } from './entities.js';
import { MIGRATIONS } from './migrations/index.js';

/** How long a request's statement may wait for PostgreSQL's answer before the client gives up. */
export const QUERY_TIMEOUT_MS = 15_000;

/**
 * One definition of the connection for the API, the worker, the CLI and the tests. Timeouts are short
 * on purpose: when PostgreSQL is unreachable a request must fail fast with 503, not hang.
 */
export function dataSourceOptions(
  config: Pick<AppConfig, 'databaseUrl'>,
  applicationName = 'loyalty',
  poolSize = 10,
  queryTimeoutMs: number | null = QUERY_TIMEOUT_MS,
): DataSourceOptions {
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
    connectTimeoutMS: 2_000,
    extra: {
      // Client-side cap so a half-open connection cannot hold a request forever.
      ...(queryTimeoutMs === null ? {} : { query_timeout: queryTimeoutMs }),
      keepAlive: true,
    },
  };
}
