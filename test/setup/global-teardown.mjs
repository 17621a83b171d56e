import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../dist/config/app-config.js';
import { deleteKeysWithPrefix } from '../../dist/queue/redis-keys.js';
import { describePeak } from './connection-watch.mjs';
import { recordedEventViolations } from './recorded-events.mjs';
import { runDirectory, runId, serverUrl } from './test-run.mjs';

/** PostgreSQL's undefined_table: a database without an `events` table (a migration test's, part-way). */
const NO_SUCH_TABLE = '42P01';

/**
 * Where the database-backed files' time went: each one's own run (from its locks to its teardown) summed per
 * tier, and the time files waited for a `@serial` or `@heavy` lock; TEST_TIMINGS=1 lists the 25 slowest files with when each ran, in seconds from the first file's start
 * (TEST_TIMINGS=all: every file),
 * TEST_TIMINGS_FILE=test/setup/durations.json writes each file's seconds for test/setup/sequencer.mjs.
 */
function reportTimings(timings) {
  if (!timings.length) return;
  const seconds = (ms) => (ms / 1000).toFixed(0);
  const tiers = {};
  const cpu = {};
  let waited = 0;
  for (const t of timings) {
    const tier = t.file.includes('.service-spec.') ? 'service' : 'e2e';
    tiers[tier] = (tiers[tier] ?? 0) + t.ranMs;
    cpu[tier] = (cpu[tier] ?? 0) + (t.cpuMs ?? 0);
    waited += t.waitedMs;
  }
  const own = Object.entries(tiers).map(([tier, ms]) => `${tier} ${seconds(ms)} s (CPU ${seconds(cpu[tier])} s)`).join(', ');
  process.stdout.write(`\nDatabase-backed files' own time: ${own}; waited for @serial/@heavy locks: ${seconds(waited)} s\n`);
  const out = process.env.TEST_TIMINGS_FILE;
  if (out) {
    const durations = Object.fromEntries(timings.sort((a, b) => a.file.localeCompare(b.file)).map((t) => [t.file, Math.round(t.ranMs / 100) / 10]));
    writeFileSync(out, `${JSON.stringify(durations, null, 2)}\n`);
  }
  if (process.env.TEST_TIMINGS === '1' || process.env.TEST_TIMINGS === 'all') {
    const first = Math.min(...timings.map((t) => t.startedAt ?? Infinity));
    for (const t of timings.sort((a, b) => b.ranMs - a.ranMs).slice(0, process.env.TEST_TIMINGS === 'all' ? undefined : 25)) {
      const from = t.startedAt ? `${seconds(t.startedAt - first).padStart(4)}–${seconds(t.startedAt - first + t.ranMs).padEnd(4)} s` : '';
      process.stdout.write(`  ${seconds(t.ranMs).padStart(4)} s  ${from} (CPU ${seconds(t.cpuMs ?? 0)} s, waited ${seconds(t.waitedMs)} s)  ${t.file}\n`);
    }
  }
}

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
  const timings = [];
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
      if (result.timing) timings.push({ file: result.file, ...result.timing });
    }
    reportTimings(timings);
    const watch = globalThis.loyaltyConnectionWatch;
    if (watch) process.stdout.write(`${describePeak(await watch.stop())}\n`);
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
