// Runs `npm run build` when dist/ is missing or older than the sources, so `npm start` works on a
// fresh clone and stays fast afterwards.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// The newest file in dist/: incremental builds rewrite only what changed, so one fixed file would look stale.
const output = 'dist';
// dashboard/ (the front-end) and openapi/ (its generated client) are built into dist/dashboard-ui/.
const inputs = ['src', 'dashboard', 'openapi', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'nest-cli.json'];

function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((entry) => newest(join(path, entry))));
}

const builtAt = existsSync(join(output, 'start.js')) ? newest(output) : 0;
if (inputs.some((input) => existsSync(input) && newest(input) > builtAt)) {
  console.log('Building (sources changed since the last build)…');
  execSync('npm run build --silent', { stdio: 'inherit' });
  // tsc emits nothing for a touched but unchanged source; the stamp records that dist/ is current anyway.
  writeFileSync(join(output, '.build-stamp'), '');
}
