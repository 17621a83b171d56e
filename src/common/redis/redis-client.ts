import type { ConnectionOptions } from 'bullmq';
import { Cluster, Redis, SentinelConnector, type RedisOptions } from 'ioredis';
import type { RedisTopology } from '../../config/redis-topology.js';

/** A client of the service's Redis, whatever its topology. */
export type RedisClient = Redis | Cluster;

/**
 * What a client is for: `failFast` clients (the API's producers, the limiter, the heartbeat) get no offline queue
 * and one retry, so a command while Redis is down or failing over fails at once (→ 503) instead of waiting;
 * `blocking` clients (BullMQ's workers) wait for Redis as long as it takes (BullMQ needs maxRetriesPerRequest null).
 */
export interface RedisClientUse {
  failFast: boolean;
  /** CLIENT SETNAME, to find the connection in CLIENT LIST. */
  name?: string;
  /** Milliseconds a command may take before it is given up (none by default). */
  commandTimeoutMs?: number;
  /** A fail-fast client's retries of a command whose connection broke (default 1). */
  retries?: number;
  lazyConnect?: boolean;
}

/**
 * A master that became a replica (a Sentinel failover, a managed Redis's switch-over behind one DNS name) keeps
 * its clients' connections and refuses their writes with READONLY: the client reconnects, which asks the
 * sentinels (or DNS) where the master is now. `resend` (2): the refused command goes again on the new connection;
 * it was not executed, so resending is safe.
 */
function reconnectOnReadonly(resend: boolean) {
  return (error: Error): boolean | 1 | 2 => (/^(READONLY|MASTERDOWN|LOADING)/.test(error.message) ? (resend ? 2 : 1) : false);
}

/** The per-connection options of one use, topology aside. */
function useOptions(use: RedisClientUse): RedisOptions {
  return {
    connectTimeout: 2_000,
    ...(use.failFast ? { enableOfflineQueue: false, maxRetriesPerRequest: use.retries ?? 1 } : { maxRetriesPerRequest: null }),
    ...(use.name ? { connectionName: use.name } : {}),
    ...(use.commandTimeoutMs ? { commandTimeout: use.commandTimeoutMs } : {}),
    ...(use.lazyConnect ? { lazyConnect: true } : {}),
    reconnectOnError: reconnectOnReadonly(!use.failFast),
  };
}

/** REDIS_URL's credentials, database and TLS (its host and port are not used under Sentinel or Cluster). */
function urlCredentials(url: string): RedisOptions {
  const parsed = new URL(url);
  const db = Number(parsed.pathname.slice(1));
  return {
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(Number.isInteger(db) && db > 0 ? { db } : {}),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/**
 * ioredis's Sentinel connector (5.11 and 6.0 alike), with one race closed. A connection's failover detector (its
 * subscriptions to the sentinels' +switch-master) stays subscribed until the next connection is made. At a failover
 * the old master drops its clients, the client reconnects and asks the sentinels for the master; if +switch-master
 * reaches that stale detector meanwhile, it disconnects the connector in the middle of its connect, which then fails
 * with "Connection is closed." and leaves the client in status `end` for good: every command fails from then on and
 * nothing reconnects it (seen on a worker whose queue client never came back after a failover). Here each connect
 * first retires the previous connection's detector; the new connection subscribes its own once it is up, as before.
 */
export class FailoverSafeSentinelConnector extends SentinelConnector {
  override connect(eventEmitter: Parameters<SentinelConnector['connect']>[0]): ReturnType<SentinelConnector['connect']> {
    // `failoverDetector` is private in ioredis's typings; cleanup() only unsubscribes it and may run twice.
    (this as unknown as { failoverDetector?: { cleanup(): void } }).failoverDetector?.cleanup();
    return super.connect(eventEmitter);
  }
}

/** Options for a master found through sentinels: failovers are followed (see reconnectOnReadonly, failoverDetector and FailoverSafeSentinelConnector). */
function sentinelOptions(topology: Extract<RedisTopology, { kind: 'sentinel' }>, use: RedisClientUse): RedisOptions {
  const credentials = urlCredentials(topology.url);
  return {
    ...credentials,
    ...useOptions(use),
    sentinels: topology.sentinels,
    name: topology.name,
    role: 'master',
    ...(topology.sentinelPassword !== null ? { sentinelPassword: topology.sentinelPassword } : {}),
    ...(credentials.tls ? { enableTLSForSentinelMode: true } : {}),
    // Listens to the sentinels' +switch-master and reconnects at once, before the old master is even demoted.
    failoverDetector: true,
    // ioredis types a Connector's options as unknown; it passes this client's options, the Sentinel ones above.
    Connector: FailoverSafeSentinelConnector as unknown as RedisOptions['Connector'],
    sentinelRetryStrategy: (times: number) => Math.min(times * 200, 2_000),
  };
}

/** The one place that makes a Redis client (the limiter, the heartbeat, the CLI, test helpers). */
export function createRedisClient(topology: RedisTopology, use: RedisClientUse): RedisClient {
  switch (topology.kind) {
    case 'standalone':
      return new Redis(topology.url, useOptions(use));
    case 'sentinel':
      return new Redis(sentinelOptions(topology, use));
    case 'cluster': {
      const { enableOfflineQueue, lazyConnect, ...redisOptions } = useOptions(use);
      return new Cluster(topology.nodes, {
        redisOptions: { ...urlCredentials(topology.url), ...redisOptions },
        ...(enableOfflineQueue === false ? { enableOfflineQueue: false } : {}),
        ...(lazyConnect ? { lazyConnect: true } : {}),
        // A node's MOVED/ASK is followed; a slot without a master while the cluster fails over is retried.
        retryDelayOnClusterDown: 200,
        retryDelayOnFailover: 200,
      });
    }
  }
}

/**
 * BullMQ's connection, from the same settings: options for one server or a Sentinel master (BullMQ makes each
 * queue's and worker's clients from them), a Cluster client for a cluster (BullMQ duplicates it for its workers'
 * blocking connections; it needs a client there, not options).
 */
export function bullConnection(topology: RedisTopology, failFast: boolean): ConnectionOptions {
  const use = { failFast };
  switch (topology.kind) {
    case 'standalone':
      return { url: topology.url, ...useOptions(use) } as ConnectionOptions;
    case 'sentinel':
      return sentinelOptions(topology, use) as ConnectionOptions;
    case 'cluster':
      return createRedisClient(topology, use);
  }
}
