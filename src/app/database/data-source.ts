import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../config/app-config.js';
import { dataSourceOptions } from './database.options.js';

/** For the TypeORM CLI only (`npm run migration:generate`); the application never imports this file. */
export default new DataSource(dataSourceOptions(loadConfig(), 'loyalty-typeorm-cli'));
