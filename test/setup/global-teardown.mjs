import { Redis } from 'ioredis';
import { loadConfig } from '../../dist/config/app-config.js';
import { dropDatabase } from '../../dist/database/ensure-database.js';

export default async function globalTeardown() {
  const config = loadConfig();
  await dropDatabase(config.databaseUrl);
  const redis = new Redis(config.redisUrl);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${config.queuePrefix}*`, 'COUNT', 1000);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
