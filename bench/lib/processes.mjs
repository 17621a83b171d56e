// Child processes of the benchmarks: the service's worker, the no-op worker, receivers.
import { spawn } from 'node:child_process';

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
