import { type CanActivate, type ExecutionContext, Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiError } from '../common/errors/api-error.js';
import { AppConfig } from '../config/app-config.js';
import { TokenLeases } from './token-leases.js';
import { TokenBucketStore } from './token-bucket.store.js';

/**
 * Counts every authenticated request against its project's bucket: RATE_LIMIT_PER_SECOND tokens a second,
 * holding twice that. Registered after AppKeyGuard, which sets `request.project`; public routes have no
 * project and are not counted. Answers carry Voucherify's headers, which the official SDK reads:
 *   X-Rate-Limit-Limit      the bucket's size (requests that can be made at once; twice the per-second rate)
 *   X-Rate-Limit-Remaining  requests left in it now
 *   X-Rate-Limit-Retry      unix time (seconds) from which the next request is accepted
 * and, on a 429, `Retry-After` in whole seconds (at least 1).
 *
 * A project that sends many requests to this process gets its tokens from Redis a few at a time
 * (TokenLeases): one round trip per request cost a tenth of a member list page's CPU (bench/README.md).
 *
 * When Redis cannot answer, requests are let through uncounted: the limiter protects the service, and
 * refusing every request because of it would be the outage it is meant to prevent.
 */
@Injectable()
export class ProjectRateLimitGuard implements CanActivate {
  private readonly logger = new Logger('RateLimit');
  private readonly perSecond: number;
  private readonly capacity: number;
  private readonly intervalUs: number;
  private readonly keyPrefix: string;
  private readonly leases: TokenLeases;
  private redisFailing = false;

  constructor(
    config: AppConfig,
    private readonly buckets: TokenBucketStore,
  ) {
    this.perSecond = config.rateLimitPerSecond;
    this.capacity = 2 * config.rateLimitPerSecond;
    this.intervalUs = Math.max(1, Math.floor(1_000_000 / config.rateLimitPerSecond));
    this.keyPrefix = `${config.queuePrefix}:rate-limit:`;
    this.leases = new TokenLeases(config.rateLimitPerSecond, this.capacity);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<Request>();
    if (!request.project) return true;
    const projectId = request.project.id;
    let bucket = this.leases.spend(projectId, Date.now());
    if (!bucket) {
      const wanted = this.leases.wanted(projectId);
      try {
        bucket = this.leases.granted(projectId, wanted, await this.buckets.take(this.keyPrefix + projectId, this.capacity, this.intervalUs, wanted), Date.now());
      } catch (error) {
        this.leases.failed(projectId, wanted);
        if (!this.redisFailing) this.logger.warn({ err: error, redis_status: this.buckets.status }, 'Redis did not answer: requests are not rate limited until it does');
        this.redisFailing = true;
        return true;
      }
      if (this.redisFailing) this.logger.log('Redis answers again: rate limiting resumed');
      this.redisFailing = false;
    }

    const response = context.switchToHttp().getResponse<Response>();
    response.setHeader('X-Rate-Limit-Limit', this.capacity);
    response.setHeader('X-Rate-Limit-Remaining', bucket.remaining);
    response.setHeader('X-Rate-Limit-Retry', Math.ceil((Date.now() + bucket.retryAfterMs) / 1_000));
    if (bucket.accepted) return true;
    const seconds = Math.max(1, Math.ceil(bucket.retryAfterMs / 1_000));
    response.setHeader('Retry-After', seconds);
    throw new ApiError(429, 'too_many_requests', 'Too many requests', {
      details: `The project's rate limit (${this.perSecond} requests per second, bursts of ${this.capacity}) is used up; retry in ${seconds} s`,
    });
  }
}
