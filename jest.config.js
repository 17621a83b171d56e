/**
 * Jest runs the TypeScript sources as native ES modules (NestJS 12 ships ESM only): @swc/jest strips
 * types and keeps decorator metadata, and `--experimental-vm-modules` (see package.json) lets jest load
 * ESM. The `.js` suffix our imports carry for Node's resolver is mapped back to the `.ts` source.
 *
 * Three tiers, each a jest project (`npm run test:unit|test:service|test:e2e`, or `--selectProjects`):
 * - unit: src/**\/*.spec.ts and the architecture test, no database and no Redis;
 * - service: test/**\/*.service-spec.ts, the feature modules on PostgreSQL without HTTP or workers;
 * - e2e: test/**\/*.e2e-spec.ts, the API, the worker and real processes.
 * The service and e2e files run in test/setup/file-environment.mjs: a database copied from the run's
 * migrated template and a queue prefix per file, so files run in parallel workers (`--maxWorkers`);
 * a file whose docblock says `@serial` runs alone, one that says `@heavy` never beside another heavy one, in
 * the order test/setup/sequencer.mjs plans.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { swcOptions } from './scripts/swc-options.mjs';

const swc = ['@swc/jest', { ...swcOptions, sourceMaps: 'inline' }];

/**
 * Test groups: a file in test/groups/ imports several small spec files of one tier, which then run inside it,
 * one after the other, instead of each on its own. A database-backed file loads the application into a sandbox
 * of its own, about 1.2 s of CPU on this machine (2026-11-29: eight small e2e files one by one 18-19 CPU-s,
 * the same eight imported by one file 9-10), so the small files share one sandbox, one database and one queue
 * prefix per group. A spec file no group imports runs on its own, as before; TEST_GROUPS=off runs every file
 * on its own and no group (to run a grouped file alone: `TEST_GROUPS=off npx jest test/e2e/health.e2e-spec.ts`).
 * What may be grouped is checked here: an existing spec file of the group's tier, in one group only, that
 * neither runs alone (`@serial`) nor in the heavy lane (`@heavy`).
 */
const groupsDir = new URL('./test/groups/', import.meta.url);
const tierOf = (file) => file.match(/\.(e2e|service)-spec\.ts$/)?.[1];
const grouped = new Map();
for (const group of readdirSync(groupsDir).filter((name) => tierOf(name))) {
  const imports = readFileSync(new URL(group, groupsDir), 'utf8').split('\n').filter((line) => line.startsWith('import'));
  const odd = imports.find((line) => !/^import '\.\.\/[^']+\.js';$/.test(line));
  // A member imported any other way would run twice: in its group, and on its own.
  if (odd) throw new Error(`test/groups/${group}: only side-effect imports of spec files, as import '../<tier>/<file>.js'; found ${odd}`);
  for (const [, member] of imports.join('\n').matchAll(/^import '(\.\.\/[^']+)\.js';$/gm)) {
    const path = new URL(`${member}.ts`, groupsDir).pathname;
    const problem =
      !existsSync(path) ? 'does not exist'
      : tierOf(path) !== tierOf(group) ? `is not a ${tierOf(group)} spec`
      : grouped.has(path) ? `is in ${grouped.get(path)} too`
      : /@(serial|heavy)\b/.test(readFileSync(path, 'utf8').slice(0, 1_000)) ? 'is @serial or @heavy: it runs on its own'
      : undefined;
    if (problem) throw new Error(`test/groups/${group}: ${member}.ts ${problem}`);
    grouped.set(path, group);
  }
}
const escape = (path) => path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const ignored = process.env.TEST_GROUPS === 'off' ? [escape(groupsDir.pathname)] : [...grouped.keys()].map((path) => `^${escape(path)}$`);

const project = (displayName, testMatch, testEnvironment) => ({
  displayName,
  // The run's template database and queue prefix (run once however many projects name them; not at all for
  // the unit tier alone, which needs neither the database nor the build).
  ...(testEnvironment === 'node' ? {} : { globalSetup: '<rootDir>/test/setup/global-setup.mjs', globalTeardown: '<rootDir>/test/setup/global-teardown.mjs' }),
  rootDir: '.',
  testMatch,
  testPathIgnorePatterns: ['/node_modules/', ...ignored],
  testEnvironment,
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': swc },
});

export default {
  rootDir: '.',
  projects: [
    project('unit', ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/arch/*.spec.ts'], 'node'),
    project('service', ['<rootDir>/test/**/*.service-spec.ts'], '<rootDir>/test/setup/file-environment.mjs'),
    project('e2e', ['<rootDir>/test/**/*.e2e-spec.ts'], '<rootDir>/test/setup/file-environment.mjs'),
  ],
  reporters: ['default', '<rootDir>/test/setup/summary-reporter.mjs'],
  testSequencer: '<rootDir>/test/setup/sequencer.mjs',
  testTimeout: 60_000,
  // Each database-backed file loads the application into its own sandbox, and a worker that ran 30 of them
  // held 2 GB: its collector's work grew with every file. A worker above 700 MB after a file is replaced
  // (measured on 18 e2e files, three workers: 12 % less CPU and 10 % less time than no limit; 350 MB and
  // 1 GB both did worse than 700 MB).
  workerIdleMemoryLimit: '700MB',
  verbose: true,
};
