import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown, Optional } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error.js';
import { bearerTokenMatches } from '../common/http/credentials.js';
import { AppConfig } from '../config/app-config.js';
import { AuthFailureLimiter } from '../rate-limit/auth-failure-limiter.js';
import { RedisConnectionLog } from '../queue/redis-connection-log.js';
import { Metrics } from './metrics.js';
import { METRICS_CHALLENGE } from './metrics-token.guard.js';

/**
 * GET /metrics (and GET /health, open) of the worker, on WORKER_METRICS_PORT when it is set (the worker has no HTTP otherwise). A
 * plain node:http server: one route, so Express and Nest's HTTP layer would add nothing but start-up time and
 * memory. It answers like the API does: the same bearer token (METRICS_TOKEN; none with METRICS_PUBLIC=true),
 * wrong tokens counted against the TCP peer's address as failed authentications (429 past AUTH_FAILURE_LIMIT;
 * there is no proxy to trust here), and JSON errors in the API's shape (docs/errors.md). It listens on every
 * interface, as the API does, since Prometheus scrapes from another host or container.
 */
@Injectable()
export class WorkerMetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private server: Server | null = null;
  private readonly failures?: AuthFailureLimiter;

  constructor(
    private readonly config: AppConfig,
    private readonly metrics: Metrics,
    @Optional() @Inject(AuthFailureLimiter) failures?: AuthFailureLimiter,
    @Optional() @Inject(RedisConnectionLog) private readonly connections?: RedisConnectionLog,
  ) {
    this.failures = failures?.enabled ? failures : undefined;
  }

  /** The port it listens on (null: not listening). */
  get port(): number | null {
    return (this.server?.address() as AddressInfo | null)?.port ?? null;
  }

  async onApplicationBootstrap(): Promise<void> {
    const port = this.config.metrics.workerPort;
    if (port === null) return;
    const server = createServer((req, res) => void this.answer(req, res));
    // A port already taken fails the start: an operator who asked for metrics must not get a worker without them.
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) => reject(new Error(`WORKER_METRICS_PORT ${port}: cannot listen (${error.code ?? error.message})`)));
      server.listen(port, () => resolve());
    });
    // Errors after the start (a broken client connection) are not the worker's problem; without a listener they would crash it.
    server.on('error', (error) => this.logger.warn({ err: error }, 'metrics server error'));
    this.server = server;
    this.logger.log(`Worker metrics on port ${port} at /metrics, health at /health`);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      // A Prometheus keeps its connection alive between scrapes: do not wait for it to go away.
      server.closeAllConnections();
    });
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/health' && (req.method === 'GET' || req.method === 'HEAD')) return this.health(req, res);
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      return this.error(res, new ApiError(404, 'not_found', 'Resource not found', { details: `Cannot find route ${req.method ?? ''} ${path.slice(0, 200)}` }));
    }
    const token = this.config.metrics.token;
    if (token !== null && !bearerTokenMatches(req.headers.authorization, token)) {
      const waitMs = this.failures ? await this.failures.refuse(req.socket.remoteAddress ?? 'unknown') : 0;
      if (waitMs > 0) {
        const { retryAfter, error } = this.failures!.tooMany(waitMs);
        res.setHeader('Retry-After', retryAfter);
        return this.error(res, error);
      }
      res.setHeader('WWW-Authenticate', METRICS_CHALLENGE);
      return this.error(res, ApiError.unauthorized());
    }
    try {
      const { contentType, body } = await this.metrics.render();
      res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch (error) {
      this.logger.error({ err: error }, 'metrics could not be rendered');
      this.error(res, new ApiError(500, 'internal_server_error', 'Internal server error'));
    }
  }

  /**
   * GET /health: liveness of the worker (a probe; no token, it tells nothing but that). 200 while the process runs;
   * `redis` says whether its queue connections are up (a Redis outage is waited out, not a reason to restart).
   */
  private health(req: IncomingMessage, res: ServerResponse): void {
    const body = JSON.stringify({ status: 'ok', redis: this.connections?.isDown ? 'down' : 'up' });
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  private error(res: ServerResponse, error: ApiError): void {
    res.writeHead(error.status, { 'Content-Type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(error.toBody(undefined)));
  }
}
