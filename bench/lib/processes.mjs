// Child processes of the benchmarks: the service's worker, the no-op worker, receivers.
import { spawn } from 'node:child_process';
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
