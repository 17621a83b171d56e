import { type ChildProcess, spawn } from 'node:child_process';
import { waitFor } from './harness.js';

const root = new URL('../../', import.meta.url).pathname;

/** A child process (a server of a test: Redis, a sentinel, haproxy, an API, a worker) with its output kept, and a bounded wait for a line of it. */
export class Child {
  output = '';
  readonly process: ChildProcess;

  constructor(command: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
    this.process = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.process.stdout?.on('data', (chunk) => (this.output += chunk));
    this.process.stderr?.on('data', (chunk) => (this.output += chunk));
  }

  get alive(): boolean {
    return this.process.exitCode === null && this.process.signalCode === null;
  }

  /** Resolves with the exit code (or signal) once the process has ended. */
  exited(): Promise<number | string> {
    if (!this.alive) return Promise.resolve(this.process.exitCode ?? this.process.signalCode ?? -1);
    return new Promise((resolve) => this.process.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  }

  async waitFor(text: string, timeoutMs = 60_000): Promise<void> {
    await waitFor(async () => {
      if (this.output.includes(text)) return true;
      if (!this.alive) throw new Error(`exited (${this.process.exitCode ?? this.process.signalCode}) before "${text}"`);
      return undefined;
    }, { timeoutMs, intervalMs: 100 }).catch((error: Error) => {
      throw new Error(`${error.message}\n--- output ---\n${this.output.slice(-4000)}`);
    });
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<void> {
    if (!this.alive) return;
    const exited = this.exited();
    this.process.kill(signal);
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
    if (this.alive) this.process.kill('SIGKILL');
    await exited;
  }
}

/** Sends requests in `lanes` parallel loops until stopped; keeps every answer's status and the time it came. */
export class RequestStream {
  readonly answers: { status: number; at: number; what: string }[] = [];
  private running = false;
  private loops: Promise<void>[] = [];

  constructor(private readonly send: (i: number) => Promise<{ status: number; what: string }>) {}

  /** `paceMs`: a lane's least time between the starts of two requests (the stream's shape, not a wait for anything). */
  start(lanes: number, paceMs = 0): void {
    this.running = true;
    let n = 0;
    this.loops = Array.from({ length: lanes }, async () => {
      while (this.running) {
        const started = Date.now();
        const answer = await this.send(n++).catch((error: Error) => ({ status: 0, what: error.message }));
        this.answers.push({ ...answer, at: Date.now() });
        const rest = paceMs - (Date.now() - started);
        if (rest > 0 && this.running) await new Promise((resolve) => setTimeout(resolve, rest));
      }
    });
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  count(test: (status: number) => boolean): number {
    return this.answers.filter((answer) => test(answer.status)).length;
  }
}
