import type { DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { ENTITIES } from './entities.js';
import { MIGRATIONS } from './migrations/index.js';

/**
 * One definition of the connection for the API, the worker, the CLI and the tests. Timeouts are short
 * on purpose: when PostgreSQL is unreachable a request must fail fast with 503, not hang.
 */
export function dataSourceOptions(config: Pick<AppConfig, 'databaseUrl' | 'databaseQueryTimeoutMs'>, applicationName = 'loyalty', poolSize = 10): DataSourceOptions {
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
      // Client-side cap so a half-open connection cannot hold a request forever (0 = none, for the seed).
      ...(config.databaseQueryTimeoutMs > 0 ? { query_timeout: config.databaseQueryTimeoutMs } : {}),
      keepAlive: true,
    },
  };
}
