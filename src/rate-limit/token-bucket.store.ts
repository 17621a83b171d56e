import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { AppConfig } from '../config/app-config.js';
import { createRedisClient } from '../common/redis/redis-client.js';

/**
 * A token bucket kept as one number per project (GCRA, "generic cell rate algorithm"): the time at which
 * the bucket will be full again (the theoretical arrival time, µs). Taking n tokens is accepted when it
 * keeps that time within `capacity` tokens of now; fewer are granted when fewer are left (at least one, or
 * none and the request is refused). A refused request changes nothing, so hammering a full bucket does not
 * push its refill further back. Redis's own clock is used, so every API process agrees on "now", and the
 * whole check is one script.
 *
 * Numbers are integers of microseconds (below 2^53, exact in Lua's doubles) and are stored with '%.0f' so
 * that Lua's default 14-digit number formatting cannot round them.
 */
const TAKE_TOKENS = `
local capacity = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local wanted = tonumber(ARGV[3])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local window = capacity * interval
local available = math.floor((window - (tat - now)) / interval)
if available < 1 then
  return {0, 0, tat + interval - window - now}
end
local granted = math.min(wanted, available)
local next_tat = tat + granted * interval
redis.call('SET', KEYS[1], string.format('%.0f', next_tat), 'PX', math.ceil((next_tat - now) / 1000))
local remaining = math.floor((window - (next_tat - now)) / interval)
local wait = 0
if remaining < 1 then wait = next_tat + interval - window - now end
return {granted, remaining, wait}
`;

/** The answer for one take. */
export interface TokenBucketResult {
  /** Tokens taken: from 1 to the number asked for, or 0 (refused). */
  granted: number;
  /** Requests left in the bucket now. */
  remaining: number;
  /** Milliseconds until the next request would be accepted (0 while tokens remain). */
  retryAfterMs: number;
}

type TakeTokens = (key: string, capacity: number, intervalUs: number, wanted: number) => Promise<[number, number, number]>;

/** How long the client may fail before it is made to connect afresh, and how often at most. */
const RECONNECT_AFTER_MS = 5_000;

/** Redis-held token buckets (one key each); what a bucket is for is the caller's business. */
@Injectable()
export class TokenBucketStore implements OnModuleInit, OnModuleDestroy {
  private readonly redis: Redis & { takeTokens: TakeTokens };
  private failingSince: number | null = null;
  private reconnectedAt = 0;

  constructor(config: AppConfig) {
    // No offline queue: while Redis is unreachable a request must not wait for it (the guard then lets
    // requests through); the command timeout covers a connection that hangs without closing.
    this.redis = createRedisClient(config.redis, { failFast: true, name: `${config.queuePrefix}:rate-limit`, commandTimeoutMs: 1_000, retries: 0, lazyConnect: true }) as Redis & {
      takeTokens: TakeTokens;
    };
    this.redis.defineCommand('takeTokens', { numberOfKeys: 1, lua: TAKE_TOKENS });
    // Failures reach the guard through the rejected command; the client's own 'error' events would
    // otherwise be printed as unhandled.
    this.redis.on('error', () => undefined);
  }

  /** Waits (at most the connect timeout) for Redis so the first requests are counted; starts without it. */
  async onModuleInit(): Promise<void> {
    await this.redis.connect().catch(() => undefined);
  }

  /** Takes up to `wanted` tokens from the bucket `key` of `capacity` tokens that gains one every `intervalUs` µs. */
  async take(key: string, capacity: number, intervalUs: number, wanted = 1): Promise<TokenBucketResult> {
    try {
      const [granted, remaining, waitUs] = await this.redis.takeTokens(key, capacity, intervalUs, wanted);
      this.failingSince = null;
      return { granted, remaining, retryAfterMs: Math.ceil(waitUs / 1_000) };
    } catch (error) {
      this.reconnectIfStuck(Date.now());
      throw error;
    }
  }

  /** The client's state (ioredis's `status`), for the log line that says rate limiting stopped. */
  get status(): string {
    return this.redis.status;
  }

  /**
   * A client that has failed for RECONNECT_AFTER_MS is made to connect afresh (through the sentinels, under
   * Sentinel), at most that often. Its own reconnection should have done it; after two Sentinel failovers on
   * a busy machine it was seen to stay without an answer for over 20 s (test/e2e/redis-sentinel.e2e-spec.ts),
   * every request meanwhile let through unlimited. The cause is not known; this bounds the outage.
   */
  private reconnectIfStuck(now: number): void {
    this.failingSince ??= now;
    if (now - this.failingSince < RECONNECT_AFTER_MS || now - this.reconnectedAt < RECONNECT_AFTER_MS) return;
    this.reconnectedAt = now;
    if (this.redis.status === 'end' || this.redis.status === 'wait') this.redis.connect().catch(() => undefined);
    else this.redis.disconnect(true);
  }

  async onModuleDestroy(): Promise<void> {
    // quit() would wait for a reply that cannot come while Redis is unreachable.
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => this.redis.disconnect());
    else this.redis.disconnect();
  }
}
