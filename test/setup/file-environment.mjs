// The test environment of every suite that talks to PostgreSQL or Redis (the service and e2e tiers): each test
// file gets a database of its own, copied from the run's migrated template (global-setup.mjs) with
// CREATE DATABASE … TEMPLATE (no migration per file), and a Redis QUEUE_PREFIX of its own, so files can run in
// parallel jest workers without seeing each other's rows, jobs or queues. It sets DATABASE_URL and QUEUE_PREFIX
// both in the file's sandbox and in the worker process (children spawned without an `env` inherit the latter),
// so the shared fixtures (testConfig, useStack, useServices, PointsDb) need no change and a new file follows
// the scheme by itself.
//
// After the file: its recorded events are checked against their types' schemas (recorded-events.mjs), the
// result written for global-teardown.mjs to report over the whole run, then its database and keys are dropped.
//
// A file whose first docblock carries `@serial` (timing, fairness or load under measurement) runs alone: it
// takes an exclusive advisory lock that every other file holds shared while it runs. A file that says `@heavy`
// (several real servers and processes of its own) runs beside ordinary files but never beside another heavy
// one: it takes the heavy lane's lock exclusive first. test/setup/sequencer.mjs orders the files so that a
// worker rarely waits for either lock.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import pg from 'pg';
import { TestEnvironment } from 'jest-environment-node';
import { loadConfig } from '../../dist/config/app-config.js';
import { deleteKeysWithPrefix } from '../../dist/queue/redis-keys.js';
import { recordedEventViolations } from './recorded-events.mjs';
import { runDirectory, serialLockKey, serverUrl } from './test-run.mjs';

/**
 * CPU milliseconds this jest worker and its children that have ended have used so far (utime, stime, cutime,
 * cstime of /proc/self/stat, in clock ticks of 10 ms): the difference over a file is its own CPU, the
 * processes it spawned included, its database's PostgreSQL backends not. 0 where /proc is missing.
 */
function cpuMs() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) * 10;
  } catch {
    return 0;
  }
}

export default class FileEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    const root = config.projectConfig.rootDir;
    this.file = relative(root, context.testPath);
    this.serial = Object.hasOwn(context.docblockPragmas ?? {}, 'serial');
    this.heavy = Object.hasOwn(context.docblockPragmas ?? {}, 'heavy');
    const tag = createHash('sha1').update(this.file).digest('hex').slice(0, 7);
    const template = new URL(process.env.TEST_TEMPLATE_DATABASE_URL);
    this.databaseUrl = Object.assign(new URL(template), { pathname: `${template.pathname}_${tag}` }).toString();
    this.queuePrefix = `${process.env.TEST_QUEUE_PREFIX}_${tag}`;
    this.database = decodeURIComponent(new URL(this.databaseUrl).pathname.slice(1));
    this.templateName = decodeURIComponent(template.pathname.slice(1));
  }

  async setup() {
    await super.setup();
    this.lock = new pg.Client({ connectionString: serverUrl(), application_name: 'loyalty-test-lock' });
    await this.lock.connect();
    const asked = Date.now();
    if (this.heavy) await this.lock.query('SELECT pg_advisory_lock($1)', [serialLockKey() ^ 1]);
    await this.lock.query(this.serial ? 'SELECT pg_advisory_lock($1)' : 'SELECT pg_advisory_lock_shared($1)', [serialLockKey()]);
    this.timing = { waitedMs: Date.now() - asked, startedAt: Date.now(), cpuAtStart: cpuMs() };
    const admin = new pg.Client({ connectionString: serverUrl() });
    await admin.connect();
    try {
      await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(this.database)} WITH (FORCE)`);
      await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(this.database)} TEMPLATE ${pg.escapeIdentifier(this.templateName)}`);
    } finally {
      await admin.end();
    }
    for (const env of [process.env, this.global.process.env]) {
      env.DATABASE_URL = this.databaseUrl;
      env.QUEUE_PREFIX = this.queuePrefix;
    }
  }

  async teardown() {
    try {
      let result;
      try {
        result = await recordedEventViolations(this.databaseUrl);
      } catch (error) {
        result = { checked: 0, lines: [`${this.file}: its recorded events could not be read: ${error.message}`] };
      }
      const dir = runDirectory();
      mkdirSync(dir, { recursive: true });
      const { cpuAtStart, ...started } = this.timing ?? {};
      const timing = { ...started, ranMs: Date.now() - (started.startedAt ?? Date.now()), cpuMs: cpuMs() - (cpuAtStart ?? cpuMs()) };
      writeFileSync(join(dir, `${this.database}.json`), JSON.stringify({ file: this.file, ...result, timing }));
      const admin = new pg.Client({ connectionString: serverUrl() });
      await admin.connect();
      try {
        await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(this.database)} WITH (FORCE)`);
      } finally {
        await admin.end();
      }
      await deleteKeysWithPrefix(loadConfig().redisUrl, this.queuePrefix);
    } finally {
      await this.lock?.end().catch(() => undefined);
      await super.teardown();
    }
  }
}
