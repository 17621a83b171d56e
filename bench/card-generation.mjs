// Card generation benchmark (issue 3: 100,000 cards in under 2 s). Runs against the compiled service
// (`npm run bench` builds first), on the local PostgreSQL and Redis, in a database and queue prefix of
// its own that are removed afterwards. Figures are medians of RUNS runs, and ratios are taken within
// this one run, since these machines are noisy.
import { randomBytes } from 'node:crypto';
import { NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { createApiApp } from '../dist/app/http-app.js';
import { WorkerModule } from '../dist/app/worker.module.js';
import { AuthService } from '../dist/auth/auth.service.js';
import { CampaignRepository } from '../dist/campaigns/campaign.repository.js';
import { CampaignsService } from '../dist/campaigns/campaigns.service.js';
import { CardGenerationService } from '../dist/campaigns/card-generation.service.js';
import { CardTurnRepository } from '../dist/campaigns/card-turn.repository.js';
import { CardIssueRepository } from '../dist/cards/card-issue.repository.js';
import { loadConfig } from '../dist/config/app-config.js';
import { dataSourceOptions } from '../dist/app/database/database.options.js';
import { dropDatabase } from '../dist/database/ensure-database.js';
import { TransactionRunner } from '../dist/database/transaction-runner.js';
import { migrateDatabase } from '../dist/app/database/migrate.js';
import { JobQueueService } from '../dist/queue/job-queue.service.js';
import { deleteKeysWithPrefix } from '../dist/queue/redis-keys.js';

const CARDS = Number(process.env.BENCH_CARDS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const LIMIT_MS = 2_000;

const runId = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
const url = new URL(loadConfig().databaseUrl);
url.pathname = `/loyalty_bench_${runId}`;
const config = loadConfig({ DATABASE_URL: url.toString(), QUEUE_PREFIX: `loyalty_bench_${runId}`, LOG_LEVEL: 'silent' });

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function main() {
  await migrateDatabase(config);
  const api = await createApiApp(config);
  const db = new DataSource(dataSourceOptions(config, 'loyalty-bench', 2));
  await db.initialize();
  try {
    const project = { id: (await api.get(AuthService).createProject('bench')).project.id };
    const campaigns = api.get(CampaignsService);
    // The worker's generator (the API process has none), on the API's connections.
    const apiDb = api.get(DataSource);
    const generation = new CardGenerationService(api.get(CampaignRepository), new CardTurnRepository(apiDb), new CardIssueRepository(apiDb), new TransactionRunner(apiDb), api.get(JobQueueService), config);
    let n = 0;

    // 1. The generator alone: the work the worker's job does (turns of the campaign: draw codes, batched
    //    INSERT … unnest). The API process has no processor, so the queued job waits while we call the
    //    service directly; the campaign is the only one in progress, so it gets every turn.
    const direct = [];
    for (let i = 0; i < RUNS; i += 1) {
      const campaign = await campaigns.create(project, { name: `direct ${(n += 1)}`, vouchers_count: CARDS });
      const started = performance.now();
      await generation.drain();
      direct.push(performance.now() - started);
      const [{ count }] = await db.query('SELECT count(DISTINCT code)::int AS count FROM vouchers WHERE campaign_id = $1', [campaign.id]);
      if (count !== CARDS) throw new Error(`expected ${CARDS} distinct codes, found ${count}`);
    }

    // 2. Baseline: the same rows through TypeORM's insert() in 1,000-row multi-VALUES chunks.
    const naive = [];
    for (let i = 0; i < RUNS; i += 1) {
      const campaign = await campaigns.create(project, { name: `baseline ${(n += 1)}`, vouchers_count: 0 });
      const started = performance.now();
      for (let offset = 0; offset < CARDS; offset += 1_000) {
        const rows = [];
        for (let j = offset; j < Math.min(offset + 1_000, CARDS); j += 1) {
          rows.push({ id: `v_b${runId}${i}_${j}`, projectId: project.id, campaignId: campaign.id, code: `B${i}-${j}-${randomBytes(4).toString('hex')}`, initialPoints: 0 });
        }
        await db.getRepository('LoyaltyCard').insert(rows);
      }
      naive.push(performance.now() - started);
    }

    // 3. End to end with a real worker: POST to the service, until the campaign says DONE.
    const worker = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), { logger: false });
    await worker.init();
    const endToEnd = [];
    try {
      for (let i = 0; i < RUNS; i += 1) {
        const started = performance.now();
        const campaign = await campaigns.create(project, { name: `e2e ${(n += 1)}`, vouchers_count: CARDS });
        for (;;) {
          const current = await campaigns.get(project, campaign.id);
          if (current.vouchers_generation_status !== 'IN_PROGRESS') {
            if (current.vouchers_generation_status !== 'DONE' || current.vouchers_count !== CARDS) throw new Error(`generation ended ${current.vouchers_generation_status}`);
            break;
          }
          await sleep(10);
        }
        endToEnd.push(performance.now() - started);
      }
    } finally {
      await worker.close();
    }

    const d = median(direct);
    const b = median(naive);
    const e = median(endToEnd);
    const rows = [
      ['generator (INSERT … unnest, 10k-row batches, 2 lanes)', d],
      ['baseline (TypeORM insert, 1k rows each)', b],
      ['end to end (POST → worker → DONE)', e],
    ];
    console.log(`\ncard generation, ${CARDS.toLocaleString('en')} cards, median of ${RUNS} runs`);
    for (const [label, ms] of rows) console.log(`  ${label.padEnd(54)} ${ms.toFixed(0).padStart(6)} ms  ${(CARDS / (ms / 1000)).toFixed(0).padStart(8)} cards/s`);
    console.log(`  baseline / generator = ${(b / d).toFixed(2)}×   end to end / generator = ${(e / d).toFixed(2)}×`);
    const pass = e < LIMIT_MS;
    console.log(`  ${pass ? 'PASS' : 'FAIL'}: end to end ${e.toFixed(0)} ms ${pass ? '<' : '>='} ${LIMIT_MS} ms`);
    process.exitCode = pass ? 0 : 1;
  } finally {
    await db.destroy();
    await api.close();
    await dropDatabase(config.databaseUrl);
    await deleteKeysWithPrefix(config.redisUrl, config.queuePrefix);
  }
}

main().catch(async (error) => {
  console.error(error);
  process.exitCode = 1;
});
