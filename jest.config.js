/**
 * Jest runs the TypeScript sources as native ES modules (NestJS 12 ships ESM only): @swc/jest strips
 * types and keeps decorator metadata, and `--experimental-vm-modules` (see package.json) lets jest load
 * ESM. The `.js` suffix our imports carry for Node's resolver is mapped back to the `.ts` source.
 */
export default {
  testEnvironment: 'node',
  rootDir: '.',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/arch/*.spec.ts', '<rootDir>/test/**/*.service-spec.ts', '<rootDir>/test/**/*.e2e-spec.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          target: 'es2022',
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
          keepClassNames: true,
        },
        module: { type: 'es6' },
        sourceMaps: 'inline',
      },
    ],
  },
  globalSetup: '<rootDir>/test/setup/global-setup.mjs',
  globalTeardown: '<rootDir>/test/setup/global-teardown.mjs',
  reporters: ['default', '<rootDir>/test/setup/summary-reporter.mjs'],
  testTimeout: 60_000,
  verbose: true,
};
