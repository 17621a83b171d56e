// Runs `npm run build` when dist/ is missing or was built from other sources, so `npm start` works on a
// fresh clone and stays fast afterwards. "Other sources" is decided by content, not timestamps: `npm
// install` rewrites package-lock.json (same bytes, new mtime), and a checkout touches files it does not
// change; neither must cost a rebuild. BUILD_COMMAND replaces the build (for the test of this script).
// `--stamp` (npm's postbuild step) only records that dist/ was built from the sources as they are: a build the
// user ran (`npm ci && npm run build`) then counts, and `npm start` does not build again.
import { execSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const output = 'dist';
const stamp = join(output, '.build-stamp');
// dashboard/ (the front-end) and openapi/ (its generated client) are built into dist/dashboard-ui/.
const inputs = ['src', 'dashboard', 'openapi', 'package-lock.json', 'package.json', 'tsconfig.json', 'scripts/compile.mjs', 'scripts/swc-options.mjs'];
const skipped = new Set(['node_modules', 'dist']);

/** One hash of every input file's path and bytes, in a fixed order. */
function sourcesHash() {
  const hash = createHash('sha256');
  const add = (path) => {
    if (statSync(path).isDirectory()) {
      for (const entry of readdirSync(path).sort()) if (!skipped.has(entry)) add(join(path, entry));
    } else {
      hash.update(`${path}\0`).update(readFileSync(path)).update('\0');
    }
  };
  for (const input of inputs) if (existsSync(input)) add(input);
  return hash.digest('hex');
}

const built = existsSync(join(output, 'start.js')) && existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : null;
if (process.argv.includes('--stamp')) {
  if (existsSync(join(output, 'start.js'))) writeFileSync(stamp, `${sourcesHash()}\n`);
} else if (built !== sourcesHash()) {
  console.log(built === null ? 'Building (no build yet)…' : 'Building (sources changed since the last build)…');
  execSync(process.env.BUILD_COMMAND ?? 'npm run build --silent', { stdio: 'inherit' });
  // Hashed after the build: it generates a file under dashboard/ (the API client), deterministically.
  writeFileSync(stamp, `${sourcesHash()}\n`);
}
