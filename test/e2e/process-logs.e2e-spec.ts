import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { freePort, testConfig, waitFor } from '../support/harness.js';

const root = new URL('../../', import.meta.url).pathname;
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
const QUEUES = ['diagnostics', 'campaigns', 'pending-points', 'webhooks'];
/** The contexts of Nest's own start-up lines: a line per module, controller and route. */
const NEST_STARTUP = ['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestApplication'];

interface Line {
  level: number;
  context?: string;
  msg: string;
  [field: string]: unknown;
}

/** Runs `node dist/<entry>` until its ready line, then SIGTERM; every JSON line it wrote, and its exit code. */
async function runUntilReady(entry: string, ready: string, env: Record<string, string>): Promise<{ lines: Line[]; code: number | null }> {
  const config = testConfig();
  const child: ChildProcess = spawn(process.execPath, [entry], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: config.databaseUrl, QUEUE_PREFIX: config.queuePrefix, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await waitFor(async () => (output.includes(ready) ? true : undefined), { timeoutMs: 30_000, intervalMs: 100 });
  } finally {
    child.kill('SIGTERM');
  }
  const code = await exited;
  const lines = output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Line);
  return { lines, code };
}

const INFO = 30;
const WARN = 40;
const DEBUG = 20;

describe('process logs: one line when ready, one when stopped; Nest start-up lines only at debug', () => {
  it('API at info: one ready line with address, version and queues; a stopped line; no module or route listing', async () => {
    const port = await freePort();
    const { lines, code } = await runUntilReady('dist/main.js', 'API ready', { LOG_LEVEL: 'info', PORT: String(port) });
    expect(code).toBe(0);
    const ready = lines.filter((line) => line.msg.startsWith('API ready'));
    expect(ready).toHaveLength(1);
    expect(ready[0]).toMatchObject({ level: INFO, context: 'Api', version, queues: QUEUES, address: expect.stringMatching(new RegExp(`^http://.+:${port}$`)) });
    expect(ready[0]!.msg).toContain(`version ${version}`);
    expect(lines.filter((line) => line.msg === 'API stopped')).toHaveLength(1);
    expect(lines.filter((line) => NEST_STARTUP.includes(line.context ?? ''))).toEqual([]);
    // Nothing else at info or above between start and the ready line.
    const beforeReady = lines.slice(0, lines.indexOf(ready[0]!));
    expect(beforeReady.filter((line) => line.level >= INFO).map((line) => line.msg)).toEqual([]);
  });

  it('API at debug: the route listing is there', async () => {
    const port = await freePort();
    const { lines } = await runUntilReady('dist/main.js', 'API ready', { LOG_LEVEL: 'debug', PORT: String(port) });
    const routes = lines.filter((line) => line.context === 'RouterExplorer');
    expect(routes.length).toBeGreaterThan(20);
    expect(routes.every((line) => line.level === DEBUG)).toBe(true);
    expect(routes.some((line) => line.msg.includes('/v2/loyalties/programs/:programId/members'))).toBe(true);
    expect(lines.some((line) => line.context === 'InstanceLoader' && line.level === DEBUG)).toBe(true);
  });

  it('worker at info: one ready line with version and queues, a stopped line, no connection noise when stopping', async () => {
    const { lines, code } = await runUntilReady('dist/worker.js', 'Worker ready', { LOG_LEVEL: 'info' });
    expect(code).toBe(0);
    const ready = lines.filter((line) => line.msg.startsWith('Worker ready'));
    expect(ready).toHaveLength(1);
    expect(ready[0]).toMatchObject({ level: INFO, context: 'Worker', version, queues: QUEUES, metrics_port: null, worker_id: expect.stringMatching(/^wrk_[0-9a-f]{18}$/) });
    expect(lines.filter((line) => line.msg === 'Worker stopped')).toHaveLength(1);
    expect(lines.filter((line) => NEST_STARTUP.includes(line.context ?? ''))).toEqual([]);
    // Closing its own connections is not an outage.
    expect(lines.filter((line) => line.msg.includes('redis connection lost'))).toEqual([]);
  });

  it('API with NODE_ENV=production and no METRICS_TOKEN: one warning that /metrics is off and how to turn it on', async () => {
    const port = await freePort();
    const { lines, code } = await runUntilReady('dist/main.js', 'API ready', { LOG_LEVEL: 'info', PORT: String(port), NODE_ENV: 'production', METRICS_TOKEN: '' });
    expect(code).toBe(0);
    const readyAt = lines.findIndex((line) => line.msg.startsWith('API ready'));
    expect(readyAt).toBeGreaterThanOrEqual(0);
    // The one line above info while starting (the test above, outside production, has none).
    const warnings = lines.slice(0, readyAt).filter((line) => line.level >= WARN);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ level: WARN, context: 'Metrics' });
    expect(warnings[0]!.msg).toContain('GET /metrics is off: NODE_ENV is production and METRICS_TOKEN is not set');
    expect(warnings[0]!.msg).toContain('Set METRICS_TOKEN');
    expect(lines.filter((line) => line.msg.includes('/metrics is off'))).toHaveLength(1);
  });
});
