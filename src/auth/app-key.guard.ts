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
 * address with too many failures (AuthFailureLimiter) gets 429 for each further failure, but a valid key is
 * served whatever its address did (issue 36): one answered from the key cache costs nothing, and a lookup
 * for a limited address is made only as AuthFailureLimiter.mayLookUp allows (else 429 without one). The
 * first global guard: the body is read after it (JsonBodyGuard), so a request without a valid key costs no
 * parsing.
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
    const address = this.failures?.addressOf(request) ?? '';
    const limited = this.failures !== undefined && this.failures.waitMs(address) > 0;
    const appId = request.header('x-app-id');
    const appToken = request.header('x-app-token');
    const checked = appId && appToken && appId.length <= 200 && appToken.length <= 200 ? await this.auth.authenticate(appId, appToken, limited ? this.failures.mayLookUp : undefined) : 'refused';
    if (typeof checked === 'object') {
      request.project = { ...checked, requestId: typeof request.id === 'string' ? request.id : undefined };
      return true;
    }
    const waitMs = this.failures ? await this.failures.refuse(address) : 0;
    if (waitMs === 0) throw ApiError.unauthorized();
    const { retryAfter, error } = this.failures!.tooMany(waitMs);
    context.switchToHttp().getResponse<Response>().setHeader('Retry-After', retryAfter);
    throw error;
  }
}
