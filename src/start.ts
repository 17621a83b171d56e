import 'reflect-metadata';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLauncher } from './app/processes/launcher.js';

// `npm start`: the launcher, which spawns main.js and worker.js from this file's directory. An entry file only
// starts its process: the work is the composition's (app/processes/).
startLauncher(dirname(fileURLToPath(import.meta.url))).catch((error: unknown) => {
  process.stderr.write(`start failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
