// Child processes of the benchmarks: the service's API and worker, the no-op worker, receivers.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';

const root = new URL('../../', import.meta.url).pathname;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** `node <args>` in the repository root with `env`; resolves once it printed `marker`. */
export async function startProcess(args, marker, env) {
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  for (const deadline = Date.now() + 30_000; !output.includes(marker); await sleep(50)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`${args.join(' ')} did not start:\n${output}`);
  }
  // BENCH_VERBOSE=1 prints what the process logged, when it stops.
  if (process.env.BENCH_VERBOSE) child.on('exit', () => process.stderr.write(output));
  child.output = () => output;
  return child;
}

/** SIGTERM, then waits for the exit. */
export async function stopProcess(child) {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Runs `command` in the repository root to its end; its standard output. */
export function run(command, argv, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${command} ${argv.join(' ')} exited with ${code}`))));
  });
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * The API as production runs it (`node dist/main.js`, its own LOG_LEVEL, its output appended to the file `log`) on
 * `port` (a free one if not given), once `GET /health/ready` answers 200 (30 s at most). `nodeArgs`: options for its `node`.
 */
export async function startApiProcess({ env, log, nodeArgs = [], port }) {
  port ??= await freePort();
  const out = createWriteStream(log, { flags: 'a' });
  const child = spawn(process.execPath, [...nodeArgs, 'dist/main.js'], { cwd: root, env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i += 1) {
    if (child.exitCode !== null) break;
    try {
      if ((await fetch(`${base}/health/ready`)).status === 200) return { child, base };
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error(`the API did not become ready; its log:\n${(await readFile(log, 'utf8').catch(() => '')).slice(-4000)}`);
}
