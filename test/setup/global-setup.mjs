// Each run gets its own databases and Redis key prefixes, created here and in the per-file environment
// (file-environment.mjs) and removed in global-teardown, so runs never share state, nor files within a run.
// Here the run's template database is migrated once; each test file then gets a copy of it
// (CREATE DATABASE … TEMPLATE) and a queue prefix of its own. Jest loads global setup outside its ESM module
// graph, so this file uses the compiled service (`npm test` builds first) rather than the TypeScript sources.
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../dist/config/app-config.js';
import { migrateDatabase } from '../../dist/app/database/migrate.js';
import { watchConnections } from './connection-watch.mjs';

export default async function globalSetup() {
  const runId = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const server = new URL(loadConfig().databaseUrl);
  server.pathname = `/loyalty_test_${runId}`;
  process.env.TEST_RUN_ID = runId;
  // The template: nothing connects to it after migration (a copy needs it idle). The workers' DATABASE_URL
  // and QUEUE_PREFIX are the file's own, set by file-environment.mjs before a file runs.
  process.env.TEST_TEMPLATE_DATABASE_URL = server.toString();
  process.env.TEST_QUEUE_PREFIX = `loyalty_test_${runId}`;
  process.env.DATABASE_URL = `${server.toString()}_none`;
  process.env.QUEUE_PREFIX = `loyalty_test_${runId}`;
  process.env.LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'silent';
  // Every test speaks from 127.0.0.1 and many answer 401 on purpose: the limit on failed authentications
  // per address is off for them, and on in the tests of that limit (test/e2e/auth-limits.e2e-spec.ts).
  process.env.AUTH_FAILURE_LIMIT = '0';
  // Files run in parallel workers on a shared 2-core machine: a request may wait for a pool connection or a
  // row lock longer than the production defaults (2 s, 3 s) for want of CPU, not for a bug, and the race
  // suites count any 503 as a failure. The tests of those bounds set their own (database-busy.e2e-spec.ts).
  process.env.DATABASE_POOL_WAIT_MS ??= '10000';
  process.env.DATABASE_LOCK_TIMEOUT_MS ??= '10000';
  // Four files at once, each with an API and a worker (in the file's process or as children), share the server's
  // 100 connections (max_connections' default): with the production pool of 10 a process, a worker's own
  // connections (the relay's LISTEN, the dispatcher's, the payload lanes') and the tests' clients, they reached
  // 100 and the server refused the next ("sorry, too many clients already": a 503, a failed test). 5 a process
  // keeps the run's peak well below (connection-watch.mjs reports it). Files that test the pool set their own.
  process.env.DATABASE_POOL_SIZE ??= '5';
  await migrateDatabase(loadConfig({ DATABASE_URL: server.toString() }));
  globalThis.loyaltyConnectionWatch = await watchConnections(new URL('/postgres', server).toString());
}
