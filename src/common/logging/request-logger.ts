import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger as Pino } from 'pino';

/**
 * One line per HTTP request when its answer is sent: `info` for 2xx/3xx, `warn` for 4xx, `error` for 5xx
 * (and `warn`, "request aborted", when the client left first), with `request_id`, `method`, `url`,
 * `status` and `ms`. Written with a plain object on a logger without redaction or per-request child
 * loggers: this runs for every request, and pino-http's per-request child logger, serializers and
 * redaction cost a fifth of the member list's CPU time.
 */
export class RequestLogger {
  constructor(private readonly pino: Pino) {}

  /** Logs the request once `res` is answered or abandoned. */
  watch(id: string, req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now();
    const method = req.method;
    // The URL as received: routing may rewrite req.url later.
    const url = req.url;
    // 'close' follows 'finish' on every answer: a flag, not removeListener, keeps the line single (removing
    // listeners from a response that has several is a measurable part of the edge's CPU, bench/README.md).
    let logged = false;
    const done = (): void => {
      if (logged) return;
      logged = true;
      const status = res.statusCode;
      const fields = { request_id: id, method, url, status, ms: Math.round(performance.now() - started) };
      if (!res.writableFinished) this.pino.warn(fields, 'request aborted');
      else if (status >= 500) this.pino.error(fields, 'request completed');
      else if (status >= 400) this.pino.warn(fields, 'request completed');
      else this.pino.info(fields, 'request completed');
    };
    res.on('finish', done);
    res.on('close', done);
  }
}
