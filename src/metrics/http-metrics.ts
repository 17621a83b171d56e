import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Metrics } from './metrics.js';

/** The `route` label of a request that matched no route (unknown paths, requests refused before routing). */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * The route template a request matched (`/v1/loyalties/:campaignId/members`), never its URL: ids in the
 * label would make a series per resource and exhaust Prometheus. Read when the answer is finished, when
 * Express has left `req.route` set to the route that answered. A route of a mounted router (bull-board under
 * /admin/queues) is prefixed with the mount path; files served by a mounted static handler have no route and
 * get the mount path with `/*`. Both are bounded sets, fixed by the code.
 */
export function routeLabel(req: Request): string {
  const route = req.route as { path?: unknown } | undefined;
  if (route && typeof route.path === 'string') return `${req.baseUrl}${route.path}` || '/';
  // A route declared with several paths (bull-board's page) has an array there.
  if (route) return `${req.baseUrl}/*`;
  return req.baseUrl ? `${req.baseUrl}/*` : UNMATCHED_ROUTE;
}

/**
 * Times every answer of the API: registered before any other middleware, so requests the edge checks refuse
 * (400, 413, 415) and 404s are counted too. Requests whose client went away before the answer ended are not
 * observed (they have no status to report). The histogram's child for a label set is kept (methods, route
 * templates and statuses are bounded sets): `labels()` builds and checks the set and a closure on every call.
 */
export function httpMetricsMiddleware(metrics: Metrics): RequestHandler {
  const children = new Map<string, { observe(value: number): void }>();
  const histogram = metrics.httpDuration;
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    // 'finish' is emitted once: `on` without the wrapper `once` makes.
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeLabel(req);
      const status = String(res.statusCode);
      const key = `${req.method} ${route} ${status}`;
      let child = children.get(key);
      if (!child) children.set(key, (child = histogram.labels(req.method, route, status)));
      child.observe(seconds);
    });
    next();
  };
}
