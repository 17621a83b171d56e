import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../dist/config/app-config.js';
import { deleteKeysWithPrefix } from '../../dist/queue/redis-keys.js';
import { recordedEventViolations } from './recorded-events.mjs';
import { runDirectory, runId, serverUrl } from './test-run.mjs';

/** PostgreSQL's undefined_table: a database without an `events` table (a migration test's, part-way). */
const NO_SUCH_TABLE = '42P01';

/**
 * Every event the run recorded keeps its type's contract: each file's environment checked its own database
 * before dropping it (file-environment.mjs) and wrote the result here; a database a file left behind (its
 * worker died) is checked now. Then the run's databases (the template included) and Redis keys go.
 */
export default async function globalTeardown() {
  const config = loadConfig();
  const dir = runDirectory();
  let checked = 0;
  const lines = [];
  try {
    let files = [];
    try {
      files = readdirSync(dir);
    } catch {
      // No file wrote a result (a run of unit tests only).
    }
    for (const name of files) {
      const result = JSON.parse(readFileSync(join(dir, name), 'utf8'));
      checked += result.checked;
      lines.push(...result.lines.map((line) => `${line}  (${result.file})`));
    }
    const admin = new pg.Client({ connectionString: serverUrl() });
    await admin.connect();
    try {
      const template = `loyalty_test_${runId()}`;
      const { rows } = await admin.query("SELECT datname FROM pg_database WHERE datname LIKE $1 || '%' ORDER BY datname", [template]);
      for (const { datname } of rows) {
        if (datname !== template) {
          const url = new URL(serverUrl());
          url.pathname = `/${datname}`;
          try {
            const result = await recordedEventViolations(url.toString());
            checked += result.checked;
            lines.push(...result.lines.map((line) => `${line}  (${datname}, left behind)`));
          } catch (error) {
            if (error.code !== NO_SUCH_TABLE) throw error;
          }
        }
        await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(datname)} WITH (FORCE)`);
      }
    } finally {
      await admin.end();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await deleteKeysWithPrefix(config.redisUrl, process.env.TEST_QUEUE_PREFIX);
  }
  if (lines.length) {
    throw new Error(`${lines.length} way(s) in which recorded events break their type's schema (of ${checked} events; src/events/schemas/):\n  ${lines.join('\n  ')}`);
  }
}
