import { type CanActivate, type ExecutionContext, Inject, Injectable, Optional } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { ApiError } from '../common/errors/api-error.js';
import { AuthFailureLimiter } from '../rate-limit/auth-failure-limiter.js';
import { AuthService } from './auth.service.js';
import { IS_PUBLIC } from './public.decorator.js';

/**
 * Global guard: every route needs X-App-Id + X-App-Token unless marked @Public(). Every failure gives
 * the same 401, whatever was wrong, so the answer reveals nothing about which app ids exist. A client
 * address with too many failures gets 429 (AuthFailureLimiter) before its key is even looked up. The
 * first global guard: the body is read after it (JsonBodyGuard), so a request without a valid key costs
 * no parsing.
 */
@Injectable()
export class AppKeyGuard implements CanActivate {
  private readonly failures?: AuthFailureLimiter;

  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
    // Absent when AUTH_FAILURE_LIMIT and RATE_LIMIT_PER_SECOND are both 0 (no Redis buckets at all).
    @Optional() @Inject(AuthFailureLimiter) failures?: AuthFailureLimiter,
  ) {
    this.failures = failures?.enabled ? failures : undefined;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    const request = context.switchToHttp().getRequest<Request>();
    const response = context.switchToHttp().getResponse<Response>();
    const address = request.ip ?? request.socket.remoteAddress ?? 'unknown';
    const waitMs = this.failures?.waitMs(address) ?? 0;
    if (waitMs > 0) throw this.tooMany(waitMs, response);
    const appId = request.header('x-app-id');
    const appToken = request.header('x-app-token');
    const project = appId && appToken && appId.length <= 200 && appToken.length <= 200 ? await this.auth.authenticate(appId, appToken) : null;
    if (project) {
      request.project = { ...project, requestId: typeof request.id === 'string' ? request.id : undefined };
      return true;
    }
    const overMs = this.failures ? await this.failures.failed(address) : 0;
    throw overMs > 0 ? this.tooMany(overMs, response) : ApiError.unauthorized();
  }

  private tooMany(waitMs: number, response: Response): ApiError {
    const { seconds, details } = this.failures!.describe(waitMs);
    response.setHeader('Retry-After', seconds);
    return new ApiError(429, 'too_many_requests', 'Too many requests', { details });
  }
}
