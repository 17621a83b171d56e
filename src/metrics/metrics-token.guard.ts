import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiError } from '../common/errors/api-error.js';
import { bearerTokenMatches } from '../common/http/credentials.js';
import { AppConfig } from '../config/app-config.js';

/** The challenge both /metrics endpoints send with a 401 (RFC 6750). */
export const METRICS_CHALLENGE = 'Bearer realm="metrics"';

/**
 * /metrics is for the operator's Prometheus, not for projects, so it takes no application key (`@Public()`);
 * when METRICS_TOKEN is set it takes that bearer token instead. A failure is the API's usual 401 body.
 */
@Injectable()
export class MetricsTokenGuard implements CanActivate {
  constructor(private readonly config: AppConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const token = this.config.metrics.token;
    if (token === null) return true;
    const request = context.switchToHttp().getRequest<Request>();
    if (bearerTokenMatches(request.header('authorization'), token)) return true;
    context.switchToHttp().getResponse<Response>().setHeader('WWW-Authenticate', METRICS_CHALLENGE);
    throw ApiError.unauthorized();
  }
}
