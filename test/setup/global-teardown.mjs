import { loadConfig } from '../../dist/config/app-config.js';
import { dropDatabase } from '../../dist/database/ensure-database.js';
import { deleteKeysWithPrefix } from '../../dist/queue/redis-keys.js';

export default async function globalTeardown() {
  const config = loadConfig();
  await dropDatabase(config.databaseUrl);
  await deleteKeysWithPrefix(config.redisUrl, config.queuePrefix);
}
