import type { ConnectionOptions } from 'bullmq';
import { bullConnection } from '../common/redis/redis-client.js';

/** BullMQ's connection to one Redis server at `redisUrl` (benchmarks' and tests' shorthand for bullConnection). */
export function redisOptions(redisUrl: string, failFast: boolean): ConnectionOptions {
  return bullConnection({ kind: 'standalone', url: redisUrl }, failFast);
}
