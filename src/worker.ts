import 'reflect-metadata';
import { startWorker } from './app/processes/worker.js';

// The BullMQ worker process. An entry file only starts its process: the work is the composition's (app/processes/).
startWorker().catch((error: unknown) => {
  process.stderr.write(`Worker failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
