import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { loadConfigOrExit } from '../../config/app-config.js';
import { migrateOnStart } from '../database/migrate.js';

/** How often the launcher checks that the process that started it is still there. */
const PARENT_CHECK_MS = 250;

function log(message: string): void {
  process.stdout.write(`${JSON.stringify({ level: 30, time: Date.now(), context: 'Launcher', msg: message })}\n`);
}

/**
 * `npm start`: validate config, create the database and migrate (under the advisory lock), then run the
 * API and the worker as two child processes. A signal is passed on to both; if either dies, the other
 * is stopped and the launcher exits non-zero, so a supervisor sees the failure. When its own parent goes
 * away (npm killed outright), it stops both too.
 *
 * package.json's start script is `exec node dist/start.js`: npm runs a script under `sh -c` and passes the
 * SIGINT or SIGTERM it receives on to that shell only. Without `exec` the shell sits between npm and this
 * process and passes neither on: dash dies of a SIGTERM (this process, orphaned, noticed that through its
 * parent check) but holds a SIGINT until its command ends, expecting a terminal's Ctrl-C to have reached the
 * whole group, so a SIGINT sent to npm alone stopped nothing. With `exec` the shell becomes this process and
 * npm's signals arrive here.
 *
 * `entryDir` is the entry files' directory (dist/), where `main.js` and `worker.js` are.
 */
export async function startLauncher(entryDir: string): Promise<void> {
  const config = loadConfigOrExit();
  const applied = await migrateOnStart(config);
  log(applied === null ? 'not migrating (MIGRATE_ON_START=false)' : applied.length ? `applied migrations: ${applied.join(', ')}` : 'database schema is up to date');

  const children = new Map<string, ChildProcess>();
  let stopping = false;
  let exitCode = 0;

  const stopAll = (signal: NodeJS.Signals) => {
    for (const child of children.values()) if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };

  for (const name of ['main', 'worker']) {
    const child = spawn(process.execPath, [join(entryDir, `${name}.js`)], { stdio: 'inherit' });
    children.set(name, child);
    child.on('exit', (code, signal) => {
      children.delete(name);
      if (!stopping) {
        log(`${name} exited unexpectedly (code ${code}, signal ${signal}); stopping the other process`);
        stopping = true;
        exitCode = 1;
        stopAll('SIGTERM');
      } else if (code !== 0 && code !== null) {
        exitCode = code;
      }
      if (children.size === 0) process.exit(exitCode);
    });
  }

  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    log(`${why}: stopping API and worker`);
    stopAll('SIGTERM');
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => stop(`${signal} received`));

  // A parent that dies without signalling this process (npm killed with SIGKILL, or a start script run without
  // `exec`, whose shell dies of a SIGTERM without passing it on) would leave the API and the worker serving with
  // nobody to stop them. So a launcher whose parent is gone (it was re-parented) stops as if it had been signalled.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) stop(`parent process ${parent} is gone`);
  }, PARENT_CHECK_MS).unref();
}
