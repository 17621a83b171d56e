import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { RequestLogger } from '../logging/request-logger.js';
import { hexId } from '../ids.js';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** Voucherify-style request id: `v-` followed by 18 hex characters. */
export function newRequestId(): string {
  return hexId('v-');
}

/**
 * Gives the request its id and its log line. Runs before the body parser, so even a 413 or a
 * malformed-JSON answer carries the id and is logged. Incoming ids are not trusted: the id must be unique
 * and well formed for log correlation.
 */
export function requestIdMiddleware(logger: RequestLogger): RequestHandler {
  return (req: Request, res: Response, next: NextFunction): void => {
    const id = newRequestId();
    req.id = id;
    res.setHeader(REQUEST_ID_HEADER, id);
    logger.watch(id, req, res);
    next();
  };
}
