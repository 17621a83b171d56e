import { parseHostPorts, type RedisEnvironmentVariables } from './redis-environment.js';

/** Where Redis is: one server, a master behind sentinels, or a cluster (docs/scaling.md "Redis"). */
export type RedisTopology =
  | { kind: 'standalone'; url: string }
  | { kind: 'sentinel'; url: string; sentinels: { host: string; port: number }[]; name: string; sentinelPassword: string | null }
  | { kind: 'cluster'; url: string; nodes: { host: string; port: number }[] };

type RedisSettings = Pick<RedisEnvironmentVariables, 'REDIS_SENTINELS' | 'REDIS_SENTINEL_NAME' | 'REDIS_SENTINEL_PASSWORD' | 'REDIS_CLUSTER_NODES' | 'SHUTDOWN_DRAIN_MS' | 'SHUTDOWN_TIMEOUT_MS'> & {
  REDIS_URL: string;
  QUEUE_PREFIX: string;
};

export function redisTopology(env: RedisSettings): RedisTopology {
  if (env.REDIS_SENTINELS !== undefined) {
    return { kind: 'sentinel', url: env.REDIS_URL, sentinels: parseHostPorts(env.REDIS_SENTINELS), name: env.REDIS_SENTINEL_NAME, sentinelPassword: env.REDIS_SENTINEL_PASSWORD ?? null };
  }
  if (env.REDIS_CLUSTER_NODES !== undefined) return { kind: 'cluster', url: env.REDIS_URL, nodes: parseHostPorts(env.REDIS_CLUSTER_NODES) };
  return { kind: 'standalone', url: env.REDIS_URL };
}

/** What no single variable's validation can say: settings that exclude or need each other. */
export function redisTopologyProblems(env: RedisSettings): string[] {
  const problems: string[] = [];
  if (env.REDIS_SENTINELS !== undefined && env.REDIS_CLUSTER_NODES !== undefined) {
    problems.push('REDIS_SENTINELS and REDIS_CLUSTER_NODES exclude each other: Redis is either a master behind sentinels or a cluster');
  }
  if (env.REDIS_CLUSTER_NODES !== undefined && !/\{[^}]+\}/.test(env.QUEUE_PREFIX)) {
    problems.push(`REDIS_CLUSTER_NODES needs a QUEUE_PREFIX with a hash tag, such as {${env.QUEUE_PREFIX}}: BullMQ's scripts use several keys of a queue at once, which must be in one slot`);
  }
  if (env.SHUTDOWN_DRAIN_MS >= env.SHUTDOWN_TIMEOUT_MS) {
    problems.push(`SHUTDOWN_DRAIN_MS must be less than SHUTDOWN_TIMEOUT_MS (got ${env.SHUTDOWN_DRAIN_MS} and ${env.SHUTDOWN_TIMEOUT_MS}): the drain is part of the shutdown`);
  }
  return problems;
}
