import type { RedisOptions } from 'bullmq';

/**
 * Connection settings for BullMQ. `failFast` is for producers in the API process: with the offline
 * queue off, a command issued while Redis is down fails at once (→ 503) instead of waiting for it.
 */
export function redisOptions(redisUrl: string, failFast: boolean): RedisOptions {
  return {
    url: redisUrl,
    connectTimeout: 2_000,
    ...(failFast ? { enableOfflineQueue: false, maxRetriesPerRequest: 1 } : { maxRetriesPerRequest: null }),
  };
}
