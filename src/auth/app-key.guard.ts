import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { KeyCheck } from './key-check.service.js';
import { IS_PUBLIC } from './public.decorator.js';

/**
 * Global guard: every route needs X-App-Id + X-App-Token unless marked @Public(). Routes under
 * KEYED_PATHS were checked by keyCheckMiddleware before their body was read (`request.project` is set);
 * this covers any other route.
 */
@Injectable()
export class AppKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly keys: KeyCheck,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    await this.keys.check(context.switchToHttp().getRequest<Request>(), context.switchToHttp().getResponse<Response>());
    return true;
  }
}
