// Runs `npm run build` when dist/ is missing or older than the sources, so `npm start` works on a
// fresh clone and stays fast afterwards.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const stamp = 'dist/start.js';
const inputs = ['src', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'nest-cli.json'];

function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((entry) => newest(join(path, entry))));
}

const builtAt = existsSync(stamp) ? statSync(stamp).mtimeMs : 0;
if (inputs.some((input) => existsSync(input) && newest(input) > builtAt)) {
  console.log('Building (sources changed since the last build)…');
  execSync('npm run build --silent', { stdio: 'inherit' });
}
