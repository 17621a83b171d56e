import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import pg from 'pg';
import { dropDatabase } from '../../src/database/ensure-database.js';
import { freePort, http, startApi, testConfig, waitFor } from '../support/harness.js';

const run = promisify(execFile);

/** Every process under `pid` (from /proc), with its command line. */
function descendants(pid: number): { pid: number; cmd: string }[] {
  const all = readdirSync('/proc').filter((name) => /^\d+$/.test(name)).flatMap((name) => {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      return [{ pid: Number(name), ppid: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]), cmd: readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ') }];
    } catch {
      return [];
    }
  });
  const found: { pid: number; cmd: string }[] = [];
  for (let parents = [pid]; parents.length; ) {
    const children = all.filter((p) => parents.includes(p.ppid));
    found.push(...children.map(({ pid: child, cmd }) => ({ pid: child, cmd })));
    parents = children.map((p) => p.pid);
  }
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
const root = new URL('../../', import.meta.url).pathname;

/**
 * The built entry points as users run them (`npm test` builds first): the launcher creates its own
 * database, runs API + worker as two processes, and stops both on SIGTERM.
 */
describe('processes (dist/start.js, dist/cli.js)', () => {
  const config = testConfig();
  const dbUrl = new URL(config.databaseUrl);
  dbUrl.pathname = `${dbUrl.pathname}_proc`;
  const env = {
    ...process.env,
    DATABASE_URL: dbUrl.toString(),
    QUEUE_PREFIX: `${config.queuePrefix}_proc`,
    LOG_LEVEL: 'warn',
    BOOTSTRAP_APP_ID: 'proc-app',
    BOOTSTRAP_APP_TOKEN: 'proc-token-0123456789abcdef',
  };
  let launcher: ChildProcess | undefined;

  afterAll(async () => {
    if (launcher && launcher.exitCode === null) launcher.kill('SIGKILL');
    await dropDatabase(dbUrl.toString());
  });

  it('exits with a message naming the variable when the configuration is bad', async () => {
    const failure = await run(process.execPath, ['dist/main.js'], { cwd: root, env: { ...env, PORT: 'eighty' } }).catch((e) => e);
    expect(failure.code).toBe(1);
    expect(failure.stderr).toContain('PORT must be an integer between 1 and 65535 (got "eighty")');
    const redis = await run(process.execPath, ['dist/worker.js'], { cwd: root, env: { ...env, REDIS_URL: 'http://x' } }).catch((e) => e);
    expect(redis.code).toBe(1);
    expect(redis.stderr).toContain('REDIS_URL must be a URL starting with redis:// or rediss://');
  });

  it('npm start: creates the database, serves API and worker, round-trips a job, stops on SIGTERM', async () => {
    const port = await freePort();
    launcher = spawn(process.execPath, ['dist/start.js'], { cwd: root, env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    launcher.stdout?.on('data', (chunk) => (output += chunk));
    launcher.stderr?.on('data', (chunk) => (output += chunk));
    const base = `http://127.0.0.1:${port}`;
    const headers = { 'X-App-Id': 'proc-app', 'X-App-Token': 'proc-token-0123456789abcdef', 'Content-Type': 'application/json' };

    // The first start creates and migrates the database, then starts two processes: on a loaded machine that
    // has taken over 30 s (CI, 2026-11-28), so it gets 90 s.
    await waitFor(async () => ((await fetch(`${base}/health/ready`).catch(() => null))?.status === 200 ? true : undefined), { timeoutMs: 90_000, intervalMs: 200 }).catch((error: Error) => {
      throw new Error(`${error.message}; the launcher printed:\n${output}`);
    });
    expect((await fetch(`${base}/docs/`)).status).toBe(200);
    const anonymous = await fetch(`${base}/v1/diagnostics/pings/ping_x`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ code: 401, key: 'unauthorized', message: 'Unauthorized' });
    const requestId = anonymous.headers.get('x-request-id');
    expect(requestId).toMatch(/^v-[0-9a-f]{18}$/);

    const created = (await (await fetch(`${base}/v1/diagnostics/pings`, { method: 'POST', headers, body: '{"note":"via worker process"}' })).json()) as { id: string };
    const done = await waitFor(async () => {
      const ping = (await (await fetch(`${base}/v1/diagnostics/pings/${created.id}`, { headers })).json()) as { status: string; processed_by: string };
      return ping.status === 'DONE' ? ping : undefined;
    });
    // The worker's health signal (it serves no HTTP): its heartbeat in Redis, read by the CLI. It pairs the
    // opaque id the ping shows with the worker's pid: the worker process, neither this test process nor the launcher.
    const health = await run(process.execPath, ['dist/cli.js', 'worker-health'], { cwd: root, env });
    const workers = (JSON.parse(health.stdout) as { workers: { pid: number; worker_id: string }[] }).workers;
    expect(workers).toHaveLength(1);
    expect(done.processed_by).toMatch(/^wrk_[0-9a-f]{18}$/);
    expect(workers[0].worker_id).toBe(done.processed_by);
    const workerPid = workers[0].pid;
    expect(workerPid).not.toBe(process.pid);
    expect(workerPid).not.toBe(launcher.pid);

    // A job still running at SIGTERM is finished before the worker exits (graceful shutdown).
    const slow = (await (await fetch(`${base}/v1/diagnostics/pings`, { method: 'POST', headers, body: '{"work_ms":1500}' })).json()) as { id: string };
    await new Promise((resolve) => setTimeout(resolve, 400));
    const exited = new Promise<number | null>((resolve) => launcher?.once('exit', (code) => resolve(code)));
    launcher.kill('SIGTERM');
    expect(await exited).toBe(0);
    const db = new pg.Client({ connectionString: dbUrl.toString() });
    await db.connect();
    const row = await db.query('SELECT status FROM diagnostic_pings WHERE id = $1', [slow.id]);
    await db.end();
    expect(row.rows[0].status).toBe('DONE');
    expect(() => process.kill(workerPid, 0)).toThrow();
    // A worker that stopped cleanly took its heartbeat with it: unhealthy at once, not 15 s later.
    const gone = await run(process.execPath, ['dist/cli.js', 'worker-health'], { cwd: root, env }).catch((e) => e);
    expect(gone.code).toBe(1);
    expect(JSON.parse(gone.stdout)).toEqual({ workers: [] });
    await expect(fetch(`${base}/health`)).rejects.toThrow();
    // The 401 was logged (warn level) as structured JSON carrying its request id; the token never was.
    expect(output).toContain(`"request_id":"${requestId}"`);
    expect(output).not.toContain('proc-token-0123456789abcdef');
  }, 150_000);

  // npm passes SIGINT and SIGTERM on to the script's process; a Ctrl-C in a terminal reaches the whole group
  // instead, but a supervisor or `kill -INT` signals npm alone.
  it.each(['SIGTERM', 'SIGINT'] as const)('npm start: a %s to the npm process alone stops the launcher, the API and the worker', async (signal) => {
    const port = await freePort();
    const npm = spawn('npm', ['start', '--silent'], { cwd: root, env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    npm.stdout?.on('data', (chunk) => (output += chunk));
    npm.stderr?.on('data', (chunk) => (output += chunk));
    let tree: { pid: number; cmd: string }[] = [];
    try {
      await waitFor(async () => ((await fetch(`http://127.0.0.1:${port}/health/ready`).catch(() => null))?.status === 200 ? true : undefined), { timeoutMs: 60_000, intervalMs: 200 });
      // npm → the launcher → API and worker.
      tree = descendants(npm.pid!);
      const nodes = tree.filter((p) => /^\S*node \S*dist\/(start|main|worker)\.js/.test(p.cmd));
      expect(nodes.map((p) => p.cmd.match(/dist\/(\w+)\.js/)![1]).sort()).toEqual(['main', 'start', 'worker']);
      npm.kill(signal);
      await waitFor(async () => (tree.every((p) => !alive(p.pid)) ? true : undefined), { timeoutMs: 20_000, intervalMs: 100 });
      expect(output).toContain('stopping API and worker');
      await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
    } finally {
      // Orphans are no longer under npm: the processes seen before the signal are killed by pid.
      for (const p of [...tree, ...descendants(npm.pid!)]) if (alive(p.pid)) process.kill(p.pid, 'SIGKILL');
    }
  });

  it('cli create-project prints a working key pair', async () => {
    const { stdout } = await run(process.execPath, ['dist/cli.js', 'create-project', '--name', 'From CLI'], { cwd: root, env });
    const created = JSON.parse(stdout);
    expect(created.project).toMatchObject({ name: 'From CLI' });
    expect(created.project.id).toMatch(/^proj_[0-9a-f]{18}$/);
    expect(created.app_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.app_token).toMatch(/^[0-9a-f]{64}$/);

    // The printed key opens the API on that database; a wrong token does not.
    const api = await startApi(testConfig({ DATABASE_URL: dbUrl.toString() }));
    try {
      const ok = await http(api).get('/v1/diagnostics/pings/ping_x').set('X-App-Id', created.app_id).set('X-App-Token', created.app_token);
      expect(ok.status).toBe(404);
      const wrong = await http(api).get('/v1/diagnostics/pings/ping_x').set('X-App-Id', created.app_id).set('X-App-Token', 'not-the-token');
      expect(wrong.status).toBe(401);
    } finally {
      await api.close();
    }
  });
});
