// The queue's own limit for bench/pending-points.mjs and bench/points-expiry.mjs: what one job per entry (or
// bucket) could reach at best. A BullMQ worker process with the service's connection settings, whose
// processor does nothing, at the concurrency the per-entry activation worker had (50; the cohort worker
// runs 2 jobs, since each job does thousands of entries' work).
import { Worker } from 'bullmq';
import { loadConfig } from '../dist/config/app-config.js';
import { redisOptions } from '../dist/queue/redis-options.js';

const config = loadConfig();
const worker = new Worker('noop-bench', async () => {}, { connection: redisOptions(config.redisUrl, false), prefix: config.queuePrefix, concurrency: 50 });
worker.on('error', (error) => process.stderr.write(`${error.message}\n`));
await worker.waitUntilReady();
process.stdout.write('noop worker ready\n');
const stop = () => {
  worker.close().then(() => process.exit(0), () => process.exit(1));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
