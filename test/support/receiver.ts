import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  /** The client's port: requests on one kept-alive connection share it. */
  remotePort: number | undefined;
}

/** How the receiver answers a request: a status (and headers, body), or a function that writes the answer itself. */
export type Answer = number | { status: number; headers?: Record<string, string>; body?: string; delayMs?: number } | ((res: ServerResponse) => void);

/**
 * A real HTTP server on 127.0.0.1 that records every request and answers from a script per path: the
 * next scripted answer, or `fallback` (200) once the script is used up.
 */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  private readonly scripts = new Map<string, Answer[]>();
  private readonly server: Server;
  fallback: Answer = 200;

  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = req.url ?? '/';
        this.requests.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now(), remotePort: req.socket.remotePort });
        const answer = this.scripts.get(path)?.shift() ?? this.fallback;
        if (typeof answer === 'function') return answer(res);
        const { status, headers, body, delayMs } = typeof answer === 'number' ? { status: answer, headers: undefined, body: undefined, delayMs: 0 } : answer;
        setTimeout(() => {
          res.writeHead(status, headers);
          res.end(body ?? 'ok');
        }, delayMs ?? 0);
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** The next answers to requests on `path`, in order. */
  script(path: string, ...answers: Answer[]): void {
    this.scripts.set(path, answers);
  }

  on(path: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
