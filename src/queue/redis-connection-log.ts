import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';

/** What BullMQ's Queue and Worker are (both EventEmitters with a Redis backend). */
interface QueueLike {
  readonly name: string;
  on(event: 'error', listener: (error: Error) => void): unknown;
  getBackend(): { client: Promise<unknown> };
}
interface ClientLike {
  status: string;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);

export function isRedisConnectionError(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  return (code !== undefined && CONNECTION_CODES.has(code)) || /^Connection is closed|connect ETIMEDOUT|ECONNREFUSED|ECONNRESET/.test(message ?? '');
}

/**
 * One place for Redis connectivity in a process. Every BullMQ Queue and Worker gets an 'error' listener
 * (without one, BullMQ prints each reconnect failure with console.error: 63 unstructured errors per 8 s
 * outage in the worker). Connection errors are counted, not logged; the process logs "redis connection
 * lost" once when its first client drops and "redis connection restored" once when all are ready again.
 * Any other error is logged as structured JSON. Subscribers of onRestored() run after each recovery.
 */
@Injectable()
export class RedisConnectionLog implements OnApplicationShutdown {
  private readonly logger = new Logger('Redis');
  private readonly down = new Set<string>();
  private readonly watched = new Set<unknown>();
  private downSince = 0;
  private suppressed = 0;
  private firstError: string | undefined;
  private closing = false;
  private readonly restoredListeners = new Set<() => void>();

  onRestored(listener: () => void): () => void {
    this.restoredListeners.add(listener);
    return () => this.restoredListeners.delete(listener);
  }

  /** Listens to a Queue's or Worker's 'error' events and to its Redis clients' connection events. */
  async watch(kind: 'queue' | 'worker', emitter: QueueLike): Promise<void> {
    if (this.watched.has(emitter)) return;
    this.watched.add(emitter);
    const component = `${kind}:${emitter.name}`;
    emitter.on('error', (error) => this.onError(component, error));
    // The main connection only: BullMQ drops and reopens a worker's blocking connection on purpose
    // (its watchdog, see RedisQueueBackend.waitForJob), which is no outage; its errors reach 'error' above.
    const client = (await emitter.getBackend().client.catch(() => undefined)) as ClientLike | undefined;
    if (!client || this.watched.has(client)) return;
    this.watched.add(client);
    client.on('close', () => this.markDown(component));
    client.on('end', () => this.markDown(component));
    client.on('ready', () => this.markUp(component));
    if (client.status !== 'ready') this.markDown(component);
    else this.markUp(component);
  }

  /** Whether a watched connection is down now (Redis unreachable). */
  get isDown(): boolean {
    return this.down.size > 0;
  }

  /** From now on connections close on purpose: no "connection lost" line for them. */
  expectClose(): void {
    this.closing = true;
  }

  onApplicationShutdown(): void {
    this.expectClose();
  }

  private onError(component: string, error: Error): void {
    if (isRedisConnectionError(error)) {
      // Also an outage signal on its own: a connection that drops before watch() got hold of its client
      // (just after start) is only heard of here.
      this.markDown(component);
      this.suppressed++;
      this.firstError ??= `${component}: ${error.message}`;
      return;
    }
    this.logger.error({ component, err: { message: error.message, code: (error as { code?: unknown }).code, stack: error.stack } }, 'queue error');
  }

  private markDown(id: string): void {
    if (this.closing) return;
    if (this.down.size === 0) {
      this.downSince = Date.now();
      this.suppressed = 0;
      this.firstError = undefined;
      this.logger.warn({ client: id }, 'redis connection lost');
    }
    this.down.add(id);
  }

  private markUp(id: string): void {
    if (!this.down.delete(id) || this.down.size > 0 || this.closing) return;
    this.logger.log({ down_ms: Date.now() - this.downSince, reconnect_errors: this.suppressed, first_error: this.firstError }, 'redis connection restored');
    for (const listener of this.restoredListeners) listener();
  }
}
