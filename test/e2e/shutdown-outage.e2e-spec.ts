import { type ChildProcess, spawn } from 'node:child_process';
import { freePort, testConfig, waitFor } from '../support/harness.js';
import { TcpProxy } from '../support/tcp-proxy.js';

const root = new URL('../../', import.meta.url).pathname;
/** Well under the processes' own shutdown timeout (25 s), at which they used to exit with code 1. */
const PROMPT_EXIT_MS = 15_000;

/**
 * Stopping while Redis is unreachable: the queues' connections are dropped instead of waiting for a
 * QUIT that cannot be sent, so the process exits at once, with code 0, instead of at the shutdown timeout.
 */
describe('shutdown while Redis is unreachable', () => {
  const config = testConfig();
  const redis = new URL(config.redisUrl);
  const proxy = new TcpProxy(redis.hostname, Number(redis.port || 6379));
  const children = new Set<ChildProcess>();

  beforeAll(async () => {
    await proxy.start();
  });
  afterEach(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    children.clear();
    await proxy.restore().catch(() => undefined);
  });
  afterAll(async () => {
    await proxy.cut();
  });

  async function start(entry: string, ready: string, env: Record<string, string> = {}) {
    const child = spawn(process.execPath, [entry], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: config.databaseUrl, QUEUE_PREFIX: config.queuePrefix, REDIS_URL: `redis://127.0.0.1:${proxy.port}`, LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let output = '';
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    await waitFor(async () => (output.includes(ready) ? true : undefined), { timeoutMs: 30_000, intervalMs: 100 });
    return { child, output: () => output };
  }

  async function stopDuringOutage({ child, output }: { child: ChildProcess; output: () => string }) {
    await proxy.cut();
    await waitFor(async () => (output().includes('redis connection lost') ? true : undefined), { timeoutMs: 15_000, intervalMs: 100 });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const signalled = Date.now();
    child.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), PROMPT_EXIT_MS))]);
    return { code, ms: Date.now() - signalled };
  }

  it('the worker exits promptly and cleanly', async () => {
    const result = await stopDuringOutage(await start('dist/worker.js', 'Worker ready'));
    expect(result.code).toBe(0);
  });

  it('the API exits promptly and cleanly', async () => {
    const port = await freePort();
    const api = await start('dist/main.js', 'API ready', { PORT: String(port) });
    // Ready means Redis answered through the proxy, so that the cut is an outage and not a failed connect.
    const redisUp = async () => {
      const res = await fetch(`http://127.0.0.1:${port}/health/ready`).catch(() => null);
      return res?.status === 200 && ((await res.json()) as { checks?: { redis?: string } }).checks?.redis === 'up' ? true : undefined;
    };
    await waitFor(redisUp, { timeoutMs: 15_000, intervalMs: 100 });
    const result = await stopDuringOutage(api);
    expect(result.code).toBe(0);
  });
});
