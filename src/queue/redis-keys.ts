import type { Redis } from 'ioredis';
import { createRedisClient } from '../common/redis/redis-client.js';

/** Every key matching the SCAN `pattern`, read in pages (never KEYS, which blocks the server). */
export async function scanKeys(redis: Redis, pattern: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    keys.push(...found);
    cursor = next;
  } while (cursor !== '0');
  return keys;
}

/** Deletes every Redis key that starts with `prefix` (a test run's or a benchmark's queues; one server, not a cluster). */
export async function deleteKeysWithPrefix(redisUrl: string, prefix: string): Promise<void> {
  const redis = createRedisClient({ kind: 'standalone', url: redisUrl }, { failFast: false }) as Redis;
  try {
    const keys = await scanKeys(redis, `${prefix}*`);
    for (let i = 0; i < keys.length; i += 1000) await redis.del(...keys.slice(i, i + 1000));
  } finally {
    redis.disconnect();
  }
}
