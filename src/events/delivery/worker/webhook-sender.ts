import http from 'node:http';
import https from 'node:https';
import { AddressGuard, BlockedAddressError } from '../ssrf-guard.js';

/** Requests in flight at once per worker process from the dispatcher (the jobs' attempts count apart). */
export const DISPATCH_CONCURRENCY = 100;
/** Requests in flight to one distribution at most, per worker process. */
export const MAX_IN_FLIGHT_PER_TARGET = 64;
/** Jobs of one distribution waiting in a worker for a slot at most; more are put back in the queue for a while. */
export const MAX_WAITING_PER_TARGET = 16;
/** Idle kept-alive sockets per host:port at most: enough for a burst of one distribution at its cap. */
export const MAX_IDLE_SOCKETS_PER_HOST = MAX_IN_FLIGHT_PER_TARGET;
const EXCERPT_BYTES = 1024;
/** Read at most this much of an answer (then drop the connection) so that a huge body cannot hold an attempt. */
const MAX_READ_BYTES = 64 * 1024;

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

export interface WebhookResult {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseExcerpt: string | null;
  retryAfter: string | undefined;
}

/**
 * Sends webhook requests: keep-alive connection pools per target, the SSRF guard on every resolved address,
 * redirects never followed (a 3xx is a failure like any non-2xx), the whole attempt (connect, answer, body)
 * bounded by the timeout.
 */
export class WebhookSender {
  // Kept-alive connections per host:port; the in-flight cap is per distribution (acquire), so several
  // distributions to one host share this pool without queueing inside it (which would eat their timeout).
  // Idle ones are bounded: at most MAX_IDLE_SOCKETS_PER_HOST kept per host:port, each closed after
  // `idleSocketMs` unused (sooner if the target's Keep-Alive header says so); a host whose last socket
  // closed leaves nothing behind in the agent. Tenants' targets thus cannot pile up open sockets in a worker.
  private readonly agents: { 'http:': http.Agent; 'https:': https.Agent };
  private readonly targets = new Map<string, { inFlight: number; waiting: (() => void)[] }>();
  private readonly projects = new Map<string, number>();

  constructor(
    readonly guard: AddressGuard,
    idleSocketMs: number,
  ) {
    // `timeout` is the sockets' inactivity timeout: an idle pooled socket that reaches it is destroyed by
    // the agent. A request in progress is not ended by it (its own timer does that), only told.
    const options = { keepAlive: true, maxSockets: 256, maxFreeSockets: MAX_IDLE_SOCKETS_PER_HOST, timeout: idleSocketMs, scheduling: 'lifo' as const };
    this.agents = { 'http:': new http.Agent(options), 'https:': new https.Agent(options) };
  }

  /**
   * A slot for one request to `target` (a distribution): at once when it has fewer than
   * MAX_IN_FLIGHT_PER_TARGET in flight, after a wait in line when fewer than MAX_WAITING_PER_TARGET wait
   * already, and false otherwise (the caller tries again later without holding a worker slot). A slow or
   * hanging target thus holds at most 64 + 16 of a worker's 100 slots, and the others keep flowing. (With
   * 16 + 48, one busy distribution got 400 deliveries/s; with 64 + 16, 900: bench/README.md.)
   */
  acquire(target: string): Promise<boolean> {
    const slot = this.targets.get(target) ?? { inFlight: 0, waiting: [] as (() => void)[] };
    this.targets.set(target, slot);
    if (slot.inFlight < MAX_IN_FLIGHT_PER_TARGET) {
      slot.inFlight += 1;
      return Promise.resolve(true);
    }
    if (slot.waiting.length >= MAX_WAITING_PER_TARGET) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => slot.waiting.push(() => resolve(true)));
  }

  /**
   * A slot for one request to `target` at once, without waiting in line: for the dispatcher, whose claim
   * already took no more than the distribution's free slots (a job's attempt may race it by one or two).
   */
  take(target: string, project: string): void {
    const slot = this.targets.get(target) ?? { inFlight: 0, waiting: [] as (() => void)[] };
    this.targets.set(target, slot);
    slot.inFlight += 1;
    this.count(project, 1);
  }

  /**
   * Counts a request of `project` in flight (`by` 1 when it starts, -1 when it ends): the dispatcher's claim
   * gives a project no more than its share of the worker's slots, counting the jobs' attempts too.
   */
  count(project: string, by: 1 | -1): void {
    const inFlight = (this.projects.get(project) ?? 0) + by;
    if (inFlight > 0) this.projects.set(project, inFlight);
    else this.projects.delete(project);
  }

  /** Counts a request of `project` in flight if it has fewer than `share`; false (nothing counted) otherwise. */
  reserve(project: string, share: number): boolean {
    if ((this.projects.get(project) ?? 0) >= share) return false;
    this.count(project, 1);
    return true;
  }

  /** Requests in flight per distribution and per project (those with none are absent). */
  load(): { targets: Map<string, number>; projects: Map<string, number> } {
    return { targets: new Map([...this.targets].map(([target, slot]) => [target, slot.inFlight])), projects: new Map(this.projects) };
  }

  release(target: string): void {
    const slot = this.targets.get(target);
    if (!slot) return;
    const next = slot.waiting.shift();
    // The slot goes straight to the next in line (inFlight unchanged).
    if (next) return next();
    slot.inFlight -= 1;
    if (slot.inFlight <= 0) this.targets.delete(target);
  }

  send(request: WebhookRequest): Promise<WebhookResult> {
    const started = performance.now();
    const url = new URL(request.url);
    const done = (result: Omit<WebhookResult, 'durationMs'>): WebhookResult => ({ ...result, durationMs: Math.round(performance.now() - started) });
    const literal = this.guard.blockedLiteral(url.hostname);
    // A literal IP is connected to without a lookup, so it is checked here.
    if (literal !== null) return Promise.resolve(done({ statusCode: null, error: new BlockedAddressError(literal).message, responseExcerpt: null, retryAfter: undefined }));
    const client = url.protocol === 'https:' ? https : http;
    const body = Buffer.from(request.body, 'utf8');
    return new Promise<WebhookResult>((resolve) => {
      let settled = false;
      const finish = (result: Omit<WebhookResult, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(done(result));
      };
      const req = client.request(
        url,
        {
          method: 'POST',
          agent: this.agents[url.protocol as 'http:' | 'https:'],
          lookup: this.guard.lookup,
          headers: { ...request.headers, 'content-length': String(body.length) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let read = 0;
          const answer = () => {
            // PostgreSQL text cannot hold NUL: one in an answer must not make the attempt unrecordable.
            const text = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8').replaceAll('\0', '');
            const statusCode = res.statusCode ?? null;
            const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
            const error = ok ? null : statusCode !== null && statusCode >= 300 && statusCode < 400 ? `redirect to ${(res.headers.location ?? '(no location)').slice(0, 500)} not followed` : `answered ${statusCode}`;
            finish({ statusCode, error, responseExcerpt: text || null, retryAfter: res.headers['retry-after'] });
          };
          res.on('data', (chunk: Buffer) => {
            if (read < EXCERPT_BYTES) chunks.push(chunk);
            read += chunk.length;
            if (read > MAX_READ_BYTES) {
              answer();
              res.destroy();
            }
          });
          res.on('end', answer);
          res.on('error', answer);
        },
      );
      const timer = setTimeout(() => {
        finish({ statusCode: null, error: `no answer within ${request.timeoutMs} ms`, responseExcerpt: null, retryAfter: undefined });
        req.destroy();
      }, request.timeoutMs);
      req.on('error', (error: Error) => finish({ statusCode: null, error: error instanceof BlockedAddressError ? error.message : `${(error as NodeJS.ErrnoException).code ?? 'error'}: ${error.message}`, responseExcerpt: null, retryAfter: undefined }));
      req.end(body);
    });
  }

  close(): void {
    this.agents['http:'].destroy();
    this.agents['https:'].destroy();
  }
}
