import { hostname } from 'node:os';
import { Logger } from '@nestjs/common';
import { WORKER_ID } from '../common/process/worker-id.js';
import type { RedisTopology } from '../config/redis-topology.js';
import { createRedisClient, type RedisClient } from '../common/redis/redis-client.js';

/** How often a worker writes its heartbeat, and how long one lasts without the next. */
export const HEARTBEAT_EVERY_MS = 5_000;
export const HEARTBEAT_TTL_MS = 15_000;

/** One hash for every worker's heartbeat: one key, so one command reads them all, on one slot of a cluster too. */
const heartbeatKey = (queuePrefix: string) => `${queuePrefix}:heartbeats`;

export interface Heartbeat {
  host: string;
  pid: number;
  /** The opaque id this process writes into what projects see (a diagnostic ping's `processed_by`). */
  worker_id: string;
  at: string;
}

interface StoredHeartbeat extends Heartbeat {
  /** Epoch milliseconds after which the heartbeat no longer counts (its worker is gone or hung). */
  expires: number;
}

/**
 * Writes and removes one beat, and drops the expired ones, in one script: a field per process in one hash
 * (HGETALL reads them all), and the hash's own expiry pushed to the newest beat's, so the key goes away
 * once every worker is gone. Times are Redis's (TIME), so workers on different hosts agree.
 */
const BEAT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local ok, value = pcall(cjson.decode, all[i + 1])
  if not ok or type(value) ~= 'table' or tonumber(value.expires) == nil or tonumber(value.expires) < now then redis.call('HDEL', KEYS[1], all[i]) end
end
if ARGV[2] == '' then
  redis.call('HDEL', KEYS[1], ARGV[1])
else
  local beat = cjson.decode(ARGV[2])
  beat.expires = now + tonumber(ARGV[3])
  redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(beat))
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
end
return now
`;

type Beat = (key: string, field: string, value: string, ttlMs: number) => Promise<number>;

/**
 * A worker's sign of life for health checks: a field per process in one Redis hash, counted only until its
 * `expires` (Redis time), so a hung or killed worker disappears within HEARTBEAT_TTL_MS, and a worker that stops cleanly
 * removes its own. `node dist/cli.js worker-health` reads them; `GET /health` on WORKER_METRICS_PORT is the
 * HTTP probe.
 */
export class WorkerHeartbeat {
  private redis: RedisClient & { beat: Beat };
  private readonly key: string;
  private readonly field = `${hostname()}:${process.pid}`;
  private timer: NodeJS.Timeout | null = null;
  private readonly logger = new Logger('Heartbeat');
  /** When beats began to fail (epoch ms), null while they are written: one line when they stop, one when they resume. */
  private failingSince: number | null = null;

  constructor(
    private readonly topology: RedisTopology,
    private readonly queuePrefix: string,
    /** How often a beat is written and how long it lasts (tests shorten both). */
    private readonly timing = { everyMs: HEARTBEAT_EVERY_MS, ttlMs: HEARTBEAT_TTL_MS },
  ) {
    this.redis = this.client();
    this.key = heartbeatKey(queuePrefix);
  }

  /**
   * Its own connection, failing fast: a beat while Redis is down is skipped, not queued, and one that hangs
   * fails after a beat's interval.
   */
  private client(): RedisClient & { beat: Beat } {
    const redis = createRedisClient(this.topology, { failFast: true, lazyConnect: true, commandTimeoutMs: this.timing.everyMs, name: `${this.queuePrefix}:heartbeat` }) as RedisClient & { beat: Beat };
    redis.defineCommand('beat', { numberOfKeys: 1, lua: BEAT });
    redis.on('error', () => undefined); // Reported by the queues' connection log already.
    return redis;
  }

  start(): void {
    const beat = () => {
      const value: Heartbeat = { host: hostname(), pid: process.pid, worker_id: WORKER_ID, at: new Date().toISOString() };
      this.redis.beat(this.key, this.field, JSON.stringify(value), this.timing.ttlMs).then(
        () => this.written(),
        (error: Error) => this.failed(error),
      );
    };
    void this.redis.connect().then(beat, () => undefined);
    this.timer = setInterval(beat, this.timing.everyMs);
    this.timer.unref();
  }

  private written(): void {
    if (this.failingSince === null) return;
    this.logger.log({ down_ms: Date.now() - this.failingSince }, 'heartbeat written again');
    this.failingSince = null;
  }

  /** A beat Redis did not take: logged once per outage, with the connection's state, so a worker that looks dead to `worker-health` says why. */
  private failed(error: Error): void {
    if (this.failingSince === null) {
      this.failingSince = Date.now();
      this.logger.warn({ error: error.message, connection: this.redis.status }, 'heartbeat not written');
    } else if (Date.now() - this.failingSince >= this.timing.ttlMs) {
      // The worker's queues came back but this connection did not (seen once under Sentinel, after the
      // master it used was killed): a TTL without a beat makes the worker look dead, so start a new one.
      this.logger.warn({ error: error.message, connection: this.redis.status, failing_ms: Date.now() - this.failingSince }, 'heartbeat connection renewed');
      this.redis.disconnect();
      this.redis = this.client();
      this.failingSince = Date.now();
      this.redis.connect().catch(() => undefined);
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.redis.status === 'ready') {
      await this.redis.beat(this.key, this.field, '', this.timing.ttlMs).catch(() => undefined);
      await this.redis.quit().catch(() => undefined);
    } else {
      // quit() would wait for a connection that may never come back.
      this.redis.disconnect();
    }
  }
}

/** The live heartbeats (one HGETALL): every worker's, or only those of workers on `host`. */
export async function workerHeartbeats(topology: RedisTopology, queuePrefix: string, host?: string): Promise<Heartbeat[]> {
  const redis = createRedisClient(topology, { failFast: true, lazyConnect: true });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    const [all, [seconds, micros]] = await Promise.all([redis.hgetall(heartbeatKey(queuePrefix)), redis.time()]);
    const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    return Object.values(all)
      .map((text) => parse(text))
      .filter((beat): beat is StoredHeartbeat => beat !== null && beat.expires >= now && (host === undefined || beat.host === host))
      .map(({ host: h, pid, worker_id, at }) => ({ host: h, pid, worker_id, at }));
  } finally {
    redis.disconnect();
  }
}

function parse(text: string): StoredHeartbeat | null {
  try {
    const value = JSON.parse(text) as StoredHeartbeat;
    return typeof value.expires === 'number' ? value : null;
  } catch {
    return null;
  }
}
