/**
 * ESLint over src/, test/, scripts/, bench/ and dashboard/src/ (npm run lint; `npm test` runs it after the
 * type-check). Only rules that catch bugs here, each chosen and argued in docs/decisions.md ("Lint (issue 37)"):
 * mostly typescript-eslint's type-checked rules about promises, whose mistakes cost a crashed worker (an
 * unhandled rejection ends a Node process) or a lost error. `void` is the one way to say "this promise floats
 * on purpose"; the promise it marks must not reject (docs/decisions.md lists each one and why).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * A hash of every file whose types others may see: all sources but the test specs (which nothing imports),
 * the tsconfigs and the lock file. ESLint's cache (npm run lint) re-lints only the files that changed, yet a
 * type-checked verdict also depends on what a file imports: a function made async leaves its unawaited
 * callers, unchanged, in other files. The hash is part of the configuration, which ESLint's cache keys on,
 * so changing a shared file re-lints everything; changing a spec re-lints that spec.
 */
function sharedSourcesHash() {
  const hash = createHash('sha256');
  const add = (file) => hash.update(`${file}\0`).update(readFileSync(join(import.meta.dirname, file)));
  for (const dir of ['src', 'test', 'scripts', 'bench', 'dashboard/src']) {
    const files = readdirSync(join(import.meta.dirname, dir), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && /\.(ts|tsx|js|mjs|json)$/.test(entry.name) && !/\.(spec|e2e-spec|service-spec)\.ts$/.test(entry.name))
      .map((entry) => join(entry.parentPath.slice(import.meta.dirname.length + 1), entry.name))
      .filter((file) => !file.startsWith('bench/results/'))
      .sort();
    files.forEach(add);
  }
  ['tsconfig.json', 'tsconfig.eslint.json', 'dashboard/tsconfig.json', 'package-lock.json'].forEach(add);
  return hash.digest('hex');
}

const assertion = tseslint.plugin.rules['no-unnecessary-type-assertion'];

/**
 * no-unnecessary-type-assertion without its advice to write `query<Row[]>(…)` instead of `(await query(…)) as
 * Row[]`: the same unchecked claim either way, and the second is how every repository reads rows.
 */
const noUnnecessaryTypeAssertion = {
  ...assertion,
  create: (context) =>
    assertion.create(
      Object.create(context, {
        report: { value: (descriptor) => descriptor.messageId !== 'contextuallyInferredTypeArguments' && context.report(descriptor) },
      }),
    ),
};

export default defineConfig(
  { ignores: ['dist/', 'coverage/', 'dashboard/src/api/schema.d.ts'] },
  {
    files: ['**/*.{js,mjs,ts,tsx}'],
    extends: [js.configs.recommended],
    languageOptions: {
      parser: tseslint.parser,
      // One program for the service, its tests, scripts and benchmarks (tsconfig.eslint.json adds the .mjs
      // files to tsconfig.json); the dashboard has its own below.
      parserOptions: { project: './tsconfig.eslint.json', tsconfigRootDir: import.meta.dirname },
      globals: globals.node,
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    settings: { sharedSources: sharedSourcesHash() },
    plugins: { '@typescript-eslint': tseslint.plugin, local: { rules: { 'no-unnecessary-type-assertion': noUnnecessaryTypeAssertion } } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/return-await': ['error', 'error-handling-correctness-only'],
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-base-to-string': 'error',
      '@typescript-eslint/restrict-template-expressions': 'error',
      '@typescript-eslint/unbound-method': 'error',
      '@typescript-eslint/no-deprecated': 'error',
      'local/no-unnecessary-type-assertion': 'error',
      'no-unused-vars': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true, argsIgnorePattern: '^_' }],
    },
  },
  // What the compiler checks already in TypeScript files (no-undef, no-redeclare, …).
  { files: ['**/*.{ts,tsx}'], extends: [tseslint.configs.eslintRecommended] },
  {
    files: ['dashboard/src/**'],
    languageOptions: { parserOptions: { project: './dashboard/tsconfig.json' }, globals: globals.browser },
  },
);
