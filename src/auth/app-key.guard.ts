import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { ApiError } from '../common/errors/api-error.js';
import { AuthService } from './auth.service.js';
import { IS_PUBLIC } from './public.decorator.js';

/**
 * Global guard: every route needs X-App-Id + X-App-Token unless marked @Public(). Every failure gives
 * the same 401, whatever was wrong, so the answer reveals nothing about which app ids exist.
 */
@Injectable()
export class AppKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    const request = context.switchToHttp().getRequest<Request>();
    const appId = request.header('x-app-id');
    const appToken = request.header('x-app-token');
    if (!appId || !appToken || appId.length > 200 || appToken.length > 200) throw ApiError.unauthorized();
    const project = await this.auth.authenticate(appId, appToken);
    if (!project) throw ApiError.unauthorized();
    request.project = { ...project, appId, requestId: typeof request.id === 'string' ? request.id : undefined };
    return true;
  }
}
