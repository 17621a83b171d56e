// What global setup, the per-file environment (file-environment.mjs) and global teardown share about a run:
// set by global-setup.mjs in the environment the jest workers inherit.
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The run's id (`<time>_<random>`): its template database, per-file databases and queue prefixes all carry it. */
export function runId() {
  const id = process.env.TEST_RUN_ID;
  if (!id) throw new Error('TEST_RUN_ID is not set: jest runs test/setup/global-setup.mjs first');
  return id;
}

/** The same PostgreSQL server's `postgres` database, for CREATE/DROP DATABASE and the run's serial lock. */
export function serverUrl() {
  const url = new URL(process.env.TEST_TEMPLATE_DATABASE_URL);
  url.pathname = '/postgres';
  return url.toString();
}

/** Where each file's environment writes its recorded-event check, for global teardown to gather. */
export function runDirectory() {
  return join(tmpdir(), `loyalty_test_${runId()}`);
}

/** The advisory lock key (in `postgres`) a `@serial` file holds exclusive and every other file shared. */
export function serialLockKey() {
  let hash = 0;
  for (const c of runId()) hash = (hash * 31 + c.charCodeAt(0)) | 0;
  return hash;
}
