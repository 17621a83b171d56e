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
import { swcOptions } from './scripts/swc-options.mjs';

const swc = ['@swc/jest', { ...swcOptions, sourceMaps: 'inline' }];

const project = (displayName, testMatch, testEnvironment) => ({
  displayName,
  // The run's template database and queue prefix (run once however many projects name them; not at all for
  // the unit tier alone, which needs neither the database nor the build).
  ...(testEnvironment === 'node' ? {} : { globalSetup: '<rootDir>/test/setup/global-setup.mjs', globalTeardown: '<rootDir>/test/setup/global-teardown.mjs' }),
  rootDir: '.',
  testMatch,
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
