import { type DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config.js';
import { dataSourceOptions, QUERY_TIMEOUT_MS } from './database.options.js';

function typeOrmRoot(queryTimeoutMs: number | null): DynamicModule {
  return TypeOrmModule.forRootAsync({
    inject: [AppConfig],
    useFactory: (config: AppConfig) => ({ ...dataSourceOptions(config, 'loyalty', 10, queryTimeoutMs), retryAttempts: 3, retryDelay: 1_000 }),
  });
}

/** The connection of the API and the worker: every statement is capped (see dataSourceOptions). */
@Module({ imports: [typeOrmRoot(QUERY_TIMEOUT_MS)] })
export class DatabaseModule {}

/**
 * For CLI batch commands (seed): one statement inserts 100,000 rows or vacuums a million, which can take
 * longer than a request's cap on a slow disk, and nobody waits on it but the operator.
 */
@Module({ imports: [typeOrmRoot(null)] })
export class BatchDatabaseModule {}
