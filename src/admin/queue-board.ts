import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ApiError } from '../common/errors/api-error.js';
import { basicPasswordMatches } from '../common/http/credentials.js';
import { bodyGuard, jsonBodyParser } from '../common/http/request-guard.js';
import type { JobQueueService } from '../queue/job-queue.service.js';
import { QueueName } from '../queue/queue.definitions.js';
import type { AuthFailureLimiter } from '../rate-limit/auth-failure-limiter.js';

export const QUEUE_BOARD_PATH = '/admin/queues';

/** The challenge of a 401: browsers show their password prompt for it. */
export const QUEUE_BOARD_CHALLENGE = 'Basic realm="queues", charset="UTF-8"';

/**
 * bull-board's page needs more than the dashboard's policy (src/dashboard/security-headers.ts) allows: its
 * page sets `<base href>` (base-uri 'none' would refuse it) and its scripts add `<style>` elements and its
 * markup has style attributes (style-src 'self' would refuse them). Scripts stay 'self' only, and nothing
 * may be loaded from elsewhere: no CDN, no fonts service (see withoutExternalFonts).
 */
export const QUEUE_BOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Any user name, ADMIN_TOKEN as the password, compared in constant time; otherwise the API's 401 body, or 429
 * once the caller's address is past AUTH_FAILURE_LIMIT (wrong passwords count as failed authentications).
 */
function requirePassword(password: string, failures: AuthFailureLimiter | undefined): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (basicPasswordMatches(req.headers.authorization, password)) return next();
    void (failures ? failures.refuse(failures.addressOf(req)) : Promise.resolve(0)).then((waitMs) => {
      if (waitMs === 0) {
        res.setHeader('WWW-Authenticate', QUEUE_BOARD_CHALLENGE);
        return next(ApiError.unauthorized());
      }
      const { retryAfter, error } = failures!.tooMany(waitMs);
      res.setHeader('Retry-After', retryAfter);
      next(error);
    }).catch(next);
  };
}

function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Content-Security-Policy', QUEUE_BOARD_CSP);
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cache-Control', 'no-store');
  next();
}

/** The stylesheet link of bull-board's page template (IBM Plex from Google Fonts). */
const EXTERNAL_FONTS = /<link\b[^>]*\bhref="https:\/\/fonts\.googleapis\.com\/[^"]*"[^>]*>\s*/g;

/**
 * bull-board's page template loads its fonts from fonts.googleapis.com: a request from the operator's browser
 * to a third party on every visit, which the board's CSP would refuse anyway (with an error in the console).
 * The link is taken out of the rendered page, and the page falls back to the browser's sans-serif and
 * monospace fonts; every other file it loads is served from the @bull-board/ui package by this process.
 */
function withoutExternalFonts(_req: Request, res: Response, next: NextFunction): void {
  type Callback = (error: Error | null, html: string) => void;
  const render = res.render.bind(res) as (view: string, options: object, callback: Callback) => void;
  // bull-board calls res.render(view, options) and lets Express send the page; that is the case handled.
  res.render = ((view: string, options?: object | Callback, callback?: Callback) => {
    if (typeof options === 'function' || callback) return render(view, typeof options === 'object' ? options : {}, callback ?? (options as Callback));
    render(view, options ?? {}, (error, html) => (error ? next(error) : res.send(html.replace(EXTERNAL_FONTS, ''))));
  }) as Response['render'];
  next();
}

/**
 * bull-board (the BullMQ queues: their jobs, retries, failures) as Express handlers for QUEUE_BOARD_PATH,
 * behind HTTP basic auth. It reads the API's own Queue instances (producer connections that fail fast when
 * Redis is down: the board then answers 500 rather than hang). Its JSON API is under `api/` (e.g.
 * `GET /admin/queues/api/queues`); its requests pass the API's edge checks (request-guard.ts) like any other,
 * and their JSON bodies are read only once the password is right, as the API reads bodies after the key.
 */
export function queueBoard(password: string, jobs: JobQueueService, failures?: AuthFailureLimiter): RequestHandler[] {
  const adapter = new ExpressAdapter();
  adapter.setBasePath(QUEUE_BOARD_PATH);
  createBullBoard({
    queues: Object.values(QueueName).map((name) => new BullMQAdapter(jobs.queue(name))),
    serverAdapter: adapter,
    options: { uiConfig: { boardTitle: 'Loyalty queues' } },
  });
  // bull-board's own Express app: the API's settings (no X-Powered-By) are not inherited by a mounted app.
  const board = adapter.getRouter() as RequestHandler & { disable(setting: string): void };
  board.disable('x-powered-by');
  return [requirePassword(password, failures?.enabled ? failures : undefined), jsonBodyParser(), bodyGuard, securityHeaders, withoutExternalFonts, board];
}
