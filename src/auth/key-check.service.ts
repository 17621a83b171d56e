import { Inject, Injectable, Optional } from '@nestjs/common';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ApiError } from '../common/errors/api-error.js';
import { AuthFailureLimiter } from '../rate-limit/auth-failure-limiter.js';
import { AuthService } from './auth.service.js';

/** The paths under which every route needs a key: checked before the body is read (see keyCheckMiddleware). */
export const KEYED_PATHS = ['/v1', '/v2'];

/**
 * The check of X-App-Id + X-App-Token. Every failure gives the same 401, whatever was wrong, so the answer
 * reveals nothing about which app ids exist; a client address with too many failures gets 429 (the
 * AuthFailureLimiter) before its key is even looked up.
 */
@Injectable()
export class KeyCheck {
  constructor(
    private readonly auth: AuthService,
    // Absent when AUTH_FAILURE_LIMIT and RATE_LIMIT_PER_SECOND are both 0 (no Redis buckets at all).
    @Optional() @Inject(AuthFailureLimiter) private readonly failures?: AuthFailureLimiter,
  ) {}

  /** Sets `request.project`, or throws the 401 / 429 to answer (the 429 with its Retry-After header set). */
  async check(request: Request, response: Response): Promise<void> {
    if (request.project) return;
    const address = request.ip ?? request.socket.remoteAddress ?? 'unknown';
    const limiter = this.failures?.enabled ? this.failures : undefined;
    const waitMs = limiter?.waitMs(address) ?? 0;
    if (waitMs > 0) throw tooMany(limiter!, waitMs, response);
    const appId = request.header('x-app-id');
    const appToken = request.header('x-app-token');
    const project = appId && appToken && appId.length <= 200 && appToken.length <= 200 ? await this.auth.authenticate(appId, appToken) : null;
    if (project) {
      request.project = { ...project, appId: appId!, requestId: typeof request.id === 'string' ? request.id : undefined };
      return;
    }
    const overMs = limiter ? await limiter.failed(address) : 0;
    throw overMs > 0 ? tooMany(limiter!, overMs, response) : ApiError.unauthorized();
  }
}

function tooMany(limiter: AuthFailureLimiter, waitMs: number, response: Response): ApiError {
  const { seconds, details } = limiter.describe(waitMs);
  response.setHeader('Retry-After', seconds);
  return new ApiError(429, 'too_many_requests', 'Too many requests', { details });
}

/**
 * Runs the key check as Express middleware on KEYED_PATHS, ahead of the JSON body parser: a request
 * without a valid key is answered before its body is read or parsed. Public routes live outside these
 * paths; AppKeyGuard still checks every non-public route wherever it is.
 */
export function keyCheckMiddleware(keys: KeyCheck): RequestHandler {
  return (request: Request, response: Response, next: NextFunction) => {
    keys.check(request, response).then(() => next(), next);
  };
}
