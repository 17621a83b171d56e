import { hostname } from 'node:os';
import { Redis } from 'ioredis';
import { WORKER_ID } from '../common/process/worker-id.js';
import { scanKeys } from './redis-keys.js';

/** How often a worker writes its heartbeat, and how long one lasts without the next. */
export const HEARTBEAT_EVERY_MS = 5_000;
export const HEARTBEAT_TTL_MS = 15_000;

const keyPrefix = (queuePrefix: string) => `${queuePrefix}:heartbeat:worker:`;

export interface Heartbeat {
  host: string;
  pid: number;
  /** The opaque id this process writes into what projects see (a diagnostic ping's `processed_by`). */
  worker_id: string;
  at: string;
}

/**
 * A worker's sign of life for health checks (the worker serves no HTTP): a Redis key per process that
 * expires unless rewritten, so a hung or killed worker disappears within HEARTBEAT_TTL_MS, and a worker
 * that stops cleanly removes its own. `node dist/cli.js worker-health` reads them.
 */
export class WorkerHeartbeat {
  private readonly redis: Redis;
  private readonly key: string;
  private timer: NodeJS.Timeout | null = null;

  constructor(redisUrl: string, queuePrefix: string) {
    // Its own connection, failing fast: a beat while Redis is down is skipped, not queued.
    this.redis = new Redis(redisUrl, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2_000 });
    this.redis.on('error', () => undefined); // Reported by the queues' connection log already.
    this.key = `${keyPrefix(queuePrefix)}${hostname()}:${process.pid}`;
  }

  start(): void {
    const beat = () => {
      const value: Heartbeat = { host: hostname(), pid: process.pid, worker_id: WORKER_ID, at: new Date().toISOString() };
      this.redis.set(this.key, JSON.stringify(value), 'PX', HEARTBEAT_TTL_MS).catch(() => undefined);
    };
    void this.redis.connect().then(beat, () => undefined);
    this.timer = setInterval(beat, HEARTBEAT_EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.redis.status === 'ready') {
      await this.redis.del(this.key).catch(() => undefined);
      await this.redis.quit().catch(() => undefined);
    } else {
      // quit() would wait for a connection that may never come back.
      this.redis.disconnect();
    }
  }
}

/** The live heartbeats: every worker's, or only those of workers on `host`. */
export async function workerHeartbeats(redisUrl: string, queuePrefix: string, host?: string): Promise<Heartbeat[]> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2_000 });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    const keys = await scanKeys(redis, `${keyPrefix(queuePrefix)}${host ?? '*'}:*`);
    const values = keys.length ? await redis.mget(...keys) : [];
    return values.filter((v): v is string => v !== null).map((v) => JSON.parse(v) as Heartbeat);
  } finally {
    redis.disconnect();
  }
}
