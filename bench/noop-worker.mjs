// The queue's own limit for bench/pending-points.mjs: a BullMQ worker process with the same connection
// settings and concurrency as the service's activation worker, whose processor does nothing.
import { Worker } from 'bullmq';
import { loadConfig } from '../dist/config/app-config.js';
import { ACTIVATION_CONCURRENCY } from '../dist/points/pending/pending-points.processor.js';
import { redisOptions } from '../dist/queue/redis-options.js';

const config = loadConfig();
const worker = new Worker('noop-bench', async () => {}, { connection: redisOptions(config.redisUrl, false), prefix: config.queuePrefix, concurrency: ACTIVATION_CONCURRENCY });
worker.on('error', (error) => process.stderr.write(`${error.message}\n`));
await worker.waitUntilReady();
process.stdout.write('noop worker ready\n');
const stop = () => {
  worker.close().then(() => process.exit(0), () => process.exit(1));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
