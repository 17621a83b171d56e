import { promisify } from 'node:util';
import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Request, Response } from 'express';
import { bodyGuard, jsonBodyParser } from './request-guard.js';

// Each resolves when the middleware calls next(), and rejects with the error it passes to next(error).
const parseJson = promisify<Request, Response>(jsonBodyParser());
const guardBody = promisify<Request, Response>(bodyGuard);

/**
 * Reads and parses the JSON body (jsonBodyParser, then bodyGuard) as the last global guard: after the key
 * check and the project's rate limit, so a request without a valid key, or over its limit, is answered
 * before its body is read, and a body sent to an unknown route is never parsed. The handler's `@Body()`
 * is read after the guards. Errors become what Express's middleware chain made of them (Nest's
 * `mapException`), so the answers stay those of docs/errors.md. A request without a body (no Content-Length,
 * no Transfer-Encoding: most GETs) is answered here as the parser would answer it, without its two promises.
 */
@Injectable()
export class JsonBodyGuard implements CanActivate {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<Request>();
    if (!hasBody(request)) {
      // What body-parser does for it: `req.body` undefined, nothing read (bodyGuard has nothing to check).
      if (!Reflect.has(request, 'body')) request.body = undefined;
      return true;
    }
    const response = context.switchToHttp().getResponse<Response>();
    try {
      await parseJson(request, response);
      await guardBody(request, response);
    } catch (error) {
      throw (this.adapterHost.httpAdapter as unknown as { mapException(error: unknown): unknown }).mapException(error);
    }
    return true;
  }
}

/** type-is's `hasBody`, body-parser's test: a request has a body when it says how it is framed. */
function hasBody(request: Request): boolean {
  return request.headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(request.headers['content-length']));
}
