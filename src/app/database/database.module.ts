import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../../config/app-config.js';
import { dataSourceOptions } from './database.options.js';
import { PoolWatch } from '../../database/pool-watch.js';

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({ ...dataSourceOptions(config), retryAttempts: 3, retryDelay: 1_000 }),
    }),
  ],
  providers: [PoolWatch],
})
export class DatabaseModule {}
