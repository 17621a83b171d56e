import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';
import { TokenBucketStore } from './token-bucket.store.js';

/** Bounds the map of limited addresses; past it the map starts again empty (Redis still holds the counts). */
const MAX_LIMITED_ADDRESSES = 10_000;

/**
 * Failed authentications per client address (AUTH_FAILURE_LIMIT a minute), counted in a Redis token
 * bucket shared by every API process: each failure takes a token; the failure that finds the bucket empty
 * is answered 429 instead of 401, and from then on this process answers the address 429 before looking at
 * its key, until the bucket has a token again (`Retry-After`). An address limited by another process is
 * limited here from its next failure here. Successful requests take nothing and ask Redis nothing, so
 * valid clients pay no round trip; while an address is limited, its valid requests are refused too (the
 * process cannot tell them apart without the lookup the limit saves).
 *
 * When Redis does not answer, failures are not counted (answered 401), as the project limiter does.
 */
@Injectable()
export class AuthFailureLimiter {
  private readonly logger = new Logger('AuthFailureLimit');
  private readonly perMinute: number;
  private readonly intervalUs: number;
  private readonly keyPrefix: string;
  /** Address → epoch ms until which it is refused without a lookup. */
  private readonly limited = new Map<string, number>();
  private redisFailing = false;

  constructor(
    config: AppConfig,
    private readonly buckets: TokenBucketStore,
  ) {
    this.perMinute = config.authFailureLimit;
    this.intervalUs = this.perMinute > 0 ? Math.max(1, Math.floor(60_000_000 / this.perMinute)) : 0;
    this.keyPrefix = `${config.queuePrefix}:auth-failures:`;
  }

  get enabled(): boolean {
    return this.perMinute > 0;
  }

  /** Milliseconds the address must still wait, or 0 when it may try. Costs no I/O. */
  waitMs(address: string, now = Date.now()): number {
    const until = this.limited.get(address);
    if (until === undefined) return 0;
    if (until > now) return until - now;
    this.limited.delete(address);
    return 0;
  }

  /** Counts a failure; returns how long the address must wait when this one was over the limit, else 0. */
  async failed(address: string): Promise<number> {
    if (!this.enabled) return 0;
    let result;
    try {
      result = await this.buckets.take(this.keyPrefix + address, this.perMinute, this.intervalUs);
    } catch (error) {
      if (!this.redisFailing) this.logger.warn({ err: error }, 'Redis did not answer: failed authentications are not counted until it does');
      this.redisFailing = true;
      return 0;
    }
    this.redisFailing = false;
    if (result.granted > 0) return 0;
    const waitMs = Math.max(1, result.retryAfterMs);
    if (this.limited.size >= MAX_LIMITED_ADDRESSES) this.limited.clear();
    this.limited.set(address, Date.now() + waitMs);
    return waitMs;
  }

  describe(waitMs: number): { seconds: number; details: string } {
    const seconds = Math.max(1, Math.ceil(waitMs / 1_000));
    return { seconds, details: `Too many failed authentications from this address (${this.perMinute} a minute); retry in ${seconds} s` };
  }
}
