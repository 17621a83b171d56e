import 'reflect-metadata';
import { startApi } from './app/processes/api.js';

// The HTTP API process. An entry file only starts its process: the work is the composition's (app/processes/).
startApi().catch((error: unknown) => {
  process.stderr.write(`API failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
