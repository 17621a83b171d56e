import { type CanActivate, type ExecutionContext, Inject, Injectable, Optional } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiError } from '../common/errors/api-error.js';
import { bearerTokenMatches } from '../common/http/credentials.js';
import { AppConfig } from '../config/app-config.js';
import { AuthFailureLimiter } from '../rate-limit/auth-failure-limiter.js';

/** The challenge both /metrics endpoints send with a 401 (RFC 6750). */
export const METRICS_CHALLENGE = 'Bearer realm="metrics"';

/**
 * /metrics is for the operator's Prometheus, not for projects, so it takes no application key (`@Public()`);
 * it takes METRICS_TOKEN as a bearer token instead (none with METRICS_PUBLIC=true and no token). A failure is
 * the API's usual 401 body, counted against the caller's address like a wrong application key: past
 * AUTH_FAILURE_LIMIT a wrong token is answered 429 (the right one is still served).
 */
@Injectable()
export class MetricsTokenGuard implements CanActivate {
  private readonly failures?: AuthFailureLimiter;

  constructor(
    private readonly config: AppConfig,
    @Optional() @Inject(AuthFailureLimiter) failures?: AuthFailureLimiter,
  ) {
    this.failures = failures?.enabled ? failures : undefined;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const token = this.config.metrics.token;
    if (token === null) return true;
    const request = context.switchToHttp().getRequest<Request>();
    if (bearerTokenMatches(request.header('authorization'), token)) return true;
    const response = context.switchToHttp().getResponse<Response>();
    const waitMs = this.failures ? await this.failures.refuse(this.failures.addressOf(request)) : 0;
    if (waitMs === 0) {
      response.setHeader('WWW-Authenticate', METRICS_CHALLENGE);
      throw ApiError.unauthorized();
    }
    const { retryAfter, error } = this.failures!.tooMany(waitMs);
    response.setHeader('Retry-After', retryAfter);
    throw error;
  }
}
