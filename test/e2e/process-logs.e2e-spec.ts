import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { cliOk } from '../support/cli.js';
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

/**
 * Runs `node dist/<entry>` until its ready line, then `work` (requests to it), then SIGTERM; every JSON line it
 * wrote, and its exit code.
 */
async function runUntilReady(entry: string, ready: string, env: Record<string, string>, work?: () => Promise<void>): Promise<{ lines: Line[]; code: number | null }> {
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
    // A start on a loaded full run has taken over 30 s (CI, 2026-11-29): the bound is the launcher's, and a miss says what the process printed.
    await waitFor(async () => (output.includes(ready) ? true : undefined), { timeoutMs: 90_000, intervalMs: 100 }).catch((error: Error) => {
      throw new Error(`${error.message}; ${entry} printed:\n${output}`);
    });
    await work?.();
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

/**
 * Each API below starts once, when a test first needs it, and every test that needs its lines reads them: a
 * process start is most of this file's cost.
 */
const once = <T>(make: () => Promise<T>) => {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
};
const BAD_KEY = { 'X-App-Id': 'nobody', 'X-App-Token': 'nothing-0123456789' };
const secret = `tenant-secret-${Date.now()}`;

/** API at info, metrics off, TRUST_PROXY=loopback: the redaction requests (with a key made before the start) and one refused key. */
const infoApi = once(async () => {
  const config = testConfig();
  const db = new pg.Client({ connectionString: config.databaseUrl });
  await db.connect();
  await db.query(`ALTER TABLE customers ADD CONSTRAINT test_redaction_check CHECK (name IS DISTINCT FROM '${secret}-checked') NOT VALID`);
  await db.query(`CREATE UNIQUE INDEX test_redaction_unique ON customers (project_id, name) WHERE name = '${secret}-unique'`);
  try {
    const port = await freePort();
    // The key is made before the start (cli.js create-project, in this process): a bootstrap key would log its
    // project's creation before the ready line, which the first test wants alone.
    const created = JSON.parse(await cliOk(['create-project', '--name', 'Redaction'])) as { app_id: string; app_token: string };
    const key = { 'X-App-Id': created.app_id, 'X-App-Token': created.app_token };
    const answers: number[] = [];
    const run = await runUntilReady('dist/main.js', 'API ready', { LOG_LEVEL: 'info', PORT: String(port), NODE_ENV: '', METRICS_TOKEN: '', METRICS_PUBLIC: '', AUTH_FAILURE_LIMIT: '30', TRUST_PROXY: 'loopback' }, async () => {
      const post = (body: object) => fetch(`http://127.0.0.1:${port}/v1/customers`, { method: 'POST', headers: { ...key, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      answers.push((await post({ source_id: `${secret}-a`, name: `${secret}-checked` })).status);
      answers.push((await post({ source_id: `${secret}-b`, name: `${secret}-unique` })).status);
      answers.push((await post({ source_id: `${secret}-c`, name: `${secret}-unique` })).status);
      await fetch(`http://127.0.0.1:${port}/v1/loyalties`, { headers: BAD_KEY });
    });
    return { ...run, port, answers };
  } finally {
    await db.query('ALTER TABLE customers DROP CONSTRAINT test_redaction_check');
    await db.query('DROP INDEX test_redaction_unique');
    await db.end();
  }
});
/** API at debug, METRICS_PUBLIC=true. */
const debugApi = once(async () => runUntilReady('dist/main.js', 'API ready', { LOG_LEVEL: 'debug', PORT: String(await freePort()), METRICS_TOKEN: '', METRICS_PUBLIC: 'true' }));
/** API at info in production, metrics off, TRUST_PROXY=false: three refused keys from a loopback peer. */
const productionApi = once(async () => {
  const port = await freePort();
  return runUntilReady('dist/main.js', 'API ready', { LOG_LEVEL: 'info', PORT: String(port), NODE_ENV: 'production', METRICS_TOKEN: '', METRICS_PUBLIC: '', AUTH_FAILURE_LIMIT: '30', TRUST_PROXY: 'false' }, async () => {
    for (let i = 0; i < 3; i++) await fetch(`http://127.0.0.1:${port}/v1/loyalties`, { headers: BAD_KEY });
  });
});

describe('process logs: one line when ready, one when stopped; Nest start-up lines only at debug', () => {
  it('API at info: one ready line with address, version and queues; a stopped line; no module or route listing', async () => {
    const { lines, code, port } = await infoApi();
    expect(code).toBe(0);
    const ready = lines.filter((line) => line.msg.startsWith('API ready'));
    expect(ready).toHaveLength(1);
    expect(ready[0]).toMatchObject({ level: INFO, context: 'Api', version, queues: QUEUES, address: expect.stringMatching(new RegExp(`^http://.+:${port}$`)) });
    expect(ready[0].msg).toContain(`version ${version}`);
    expect(lines.filter((line) => line.msg === 'API stopped')).toHaveLength(1);
    expect(lines.filter((line) => NEST_STARTUP.includes(line.context ?? ''))).toEqual([]);
    // Nothing else at info or above between start and the ready line.
    const beforeReady = lines.slice(0, lines.indexOf(ready[0]));
    expect(beforeReady.filter((line) => line.level >= INFO).map((line) => line.msg)).toEqual([]);
  }, 120_000);

  it('API at debug: the route listing is there', async () => {
    const { lines } = await debugApi();
    const routes = lines.filter((line) => line.context === 'RouterExplorer');
    expect(routes.length).toBeGreaterThan(20);
    expect(routes.every((line) => line.level === DEBUG)).toBe(true);
    expect(routes.some((line) => line.msg.includes('/v2/loyalties/programs/:programId/members'))).toBe(true);
    expect(lines.some((line) => line.context === 'InstanceLoader' && line.level === DEBUG)).toBe(true);
  }, 120_000);

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
  }, 120_000);

  it('API without METRICS_TOKEN, in production or not: no warning, the ready line says metrics are off (issue 36)', async () => {
    for (const { lines, code } of [await infoApi(), await productionApi()]) {
      expect(code).toBe(0);
      const ready = lines.find((line) => line.msg.startsWith('API ready'))!;
      expect(ready).toMatchObject({ metrics: 'off' });
      expect(ready.msg).toContain('; metrics off)');
      expect(lines.slice(0, lines.indexOf(ready)).filter((line) => line.level >= WARN)).toEqual([]);
    }
    const { lines } = await debugApi();
    expect(lines.find((line) => line.msg.startsWith('API ready'))).toMatchObject({ metrics: 'public' });
  }, 300_000);

  it('API reached from a loopback peer without TRUST_PROXY: one warning that a proxy would make its clients one address (issue 36)', async () => {
    const { lines } = await productionApi();
    const warnings = lines.filter((line) => line.context === 'AuthFailureLimit');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ level: WARN, peer: expect.stringMatching(/127\.0\.0\.1$/) });
    expect(warnings[0].msg).toContain('TRUST_PROXY is false');
    expect(warnings[0].msg).toContain('valid keys are still served');
    // Told which proxies to trust, it says nothing.
    const trusted = await infoApi();
    expect(trusted.lines.filter((line) => line.context === 'AuthFailureLimit')).toEqual([]);
  }, 240_000);

  it("a PostgreSQL error's detail (\"Failing row contains …\", \"Key (…)=(…) already exists\") is logged redacted: no tenant value reaches the log (issue 36)", async () => {
    const { lines, answers } = await infoApi();
    expect(answers).toEqual([400, 200, 500]);
    const refused = lines.find((line) => line.msg === 'PostgreSQL refused a value from the request');
    const unhandled = lines.find((line) => line.msg === 'Unhandled error');
    expect(refused).toMatchObject({ level: WARN, pg_code: '23514', err: { code: '23514', detail: '[redacted]', constraint: 'test_redaction_check', driverError: { detail: '[redacted]' } } });
    expect(unhandled).toMatchObject({ err: { code: '23505', detail: '[redacted]', constraint: 'test_redaction_unique' } });
    expect(lines.filter((line) => JSON.stringify(line).includes(secret))).toEqual([]);
  }, 240_000);
});
