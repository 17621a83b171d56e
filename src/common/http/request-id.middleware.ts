import type { NextFunction, Request, Response } from 'express';
import { hexId } from '../ids.js';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** Voucherify-style request id: `v-` followed by 18 hex characters. */
export function newRequestId(): string {
  return hexId('v-');
}

/**
 * Runs before the body parser, so even a 413 or a malformed-JSON answer carries the id. Incoming ids
 * are not trusted: the id must be unique and well formed for log correlation.
 */
export function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  const id = newRequestId();
  req.id = id;
  res.setHeader(REQUEST_ID_HEADER, id);
  next();
}
