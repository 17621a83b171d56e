import { BlockList, isIP } from 'node:net';
import { Injectable, Logger } from '@nestjs/common';
import type { Request } from 'express';
import { ApiError } from '../common/errors/api-error.js';
import { AppConfig } from '../config/app-config.js';
import { TokenBucketStore } from './token-bucket.store.js';

/** Bounds the map of limited addresses; past it the map starts again empty (Redis still holds the counts). */
const MAX_LIMITED_ADDRESSES = 10_000;

/** Peers that are most likely a proxy in front of the API rather than its clients. */
const PROXY_LIKE = new BlockList();
for (const [net, prefix] of [['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16]] as const) PROXY_LIKE.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [['::1', 128], ['fc00::', 7], ['fe80::', 10]] as const) PROXY_LIKE.addSubnet(net, prefix, 'ipv6');

/**
 * Failed authentications per client address (AUTH_FAILURE_LIMIT a minute), counted in a Redis token bucket
 * shared by every API process: an unknown app id or a wrong token, and a wrong METRICS_TOKEN or ADMIN_TOKEN
 * (one bucket per address, whatever the credential). Each failure takes a token; the failure that finds the
 * bucket empty is answered 429 instead of 401, and from then on this process answers the address's failures
 * 429 without asking Redis, until the bucket has a token again (`Retry-After`). An address limited by another
 * process is limited here from its next failure here.
 *
 * The limit refuses guesses, never valid credentials (issue 36): a client behind the same proxy as a guesser,
 * or one whose address an attacker names in X-Forwarded-For, is served as long as its key is. What the limit
 * saves is the database: a limited address gets no key lookup, except for a key this process has already
 * seen with that token (its cache entry ran out), and otherwise within a budget of AUTH_FAILURE_LIMIT lookups a
 * minute per process for all limited addresses together (`mayLookUp`); past it, a key the process has never
 * seen is answered 429 until the budget refills. Successful requests take nothing and ask Redis nothing.
 *
 * When Redis does not answer, failures are not counted (answered 401), as the project limiter does.
 */
@Injectable()
export class AuthFailureLimiter {
  private readonly logger = new Logger('AuthFailureLimit');
  private readonly perMinute: number;
  private readonly intervalUs: number;
  private readonly keyPrefix: string;
  private readonly trustsProxy: boolean;
  /** Address → epoch ms until which its failures are answered 429 without asking Redis. */
  private readonly limited = new Map<string, number>();
  /** The lookup budget of limited addresses, as a GCRA time (epoch ms at which it is full again). */
  private lookupsFullAt = 0;
  private redisFailing = false;
  private proxyWarned = false;

  constructor(
    config: AppConfig,
    private readonly buckets: TokenBucketStore,
  ) {
    this.perMinute = config.authFailureLimit;
    this.intervalUs = this.perMinute > 0 ? Math.max(1, Math.floor(60_000_000 / this.perMinute)) : 0;
    this.keyPrefix = `${config.queuePrefix}:auth-failures:`;
    this.trustsProxy = config.trustProxy !== false;
  }

  get enabled(): boolean {
    return this.perMinute > 0;
  }

  /**
   * The address an API request's failures count against: Express's `req.ip` (the TCP peer, or the client named
   * in X-Forwarded-For as TRUST_PROXY allows). Warns once when a peer looks like a proxy and TRUST_PROXY is off.
   */
  addressOf(request: Request): string {
    const peer = request.socket.remoteAddress;
    if (!this.trustsProxy && !this.proxyWarned && peer !== undefined && proxyLike(peer)) {
      this.proxyWarned = true;
      this.logger.warn(
        { peer },
        `Requests reach the API from a private or loopback address (${peer}) and TRUST_PROXY is false: if a proxy or load balancer forwards them, every client behind it counts as that one address for AUTH_FAILURE_LIMIT, so one client's failed authentications get the others' failures answered 429 (valid keys are still served). Set TRUST_PROXY to the proxy's addresses (docs/operations.md)`,
      );
    }
    return request.ip ?? peer ?? 'unknown';
  }

  /** Milliseconds the address must still wait, or 0 when it may try. Costs no I/O. */
  waitMs(address: string, now = Date.now()): number {
    const until = this.limited.get(address);
    if (until === undefined) return 0;
    if (until > now) return until - now;
    this.limited.delete(address);
    return 0;
  }

  /**
   * Asked before a key lookup for a limited address: yes for a key this process has seen with the token
   * presented (a guess cannot match it), else one from the budget of AUTH_FAILURE_LIMIT a minute (bursts of as
   * many) that this process spends on limited addresses.
   */
  readonly mayLookUp = (seen: boolean, now = Date.now()): boolean => {
    if (seen) return true;
    const intervalMs = this.intervalUs / 1_000;
    const fullAt = Math.max(this.lookupsFullAt, now);
    if (fullAt + intervalMs - now > 60_000) return false;
    this.lookupsFullAt = fullAt + intervalMs;
    return true;
  };

  /**
   * A failed authentication: 0 when it is answered 401, else how long the address must wait (429). Counted in
   * Redis unless the address is already limited here (a refused take would change nothing).
   */
  async refuse(address: string): Promise<number> {
    return this.waitMs(address) || this.failed(address);
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

  /** The 429 for a wait, and the `Retry-After` (whole seconds) to send with it. */
  tooMany(waitMs: number): { retryAfter: number; error: ApiError } {
    const seconds = Math.max(1, Math.ceil(waitMs / 1_000));
    const details = `Too many failed authentications from this address (${this.perMinute} a minute); retry in ${seconds} s`;
    return { retryAfter: seconds, error: new ApiError(429, 'too_many_requests', 'Too many requests', { details }) };
  }
}

function proxyLike(address: string): boolean {
  const ip = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] ?? address;
  const family = isIP(ip);
  return family !== 0 && PROXY_LIKE.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}
