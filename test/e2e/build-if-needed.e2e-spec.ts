import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const script = new URL('../../scripts/build-if-needed.mjs', import.meta.url).pathname;
// Stands in for `npm run build`: makes dist/start.js and counts the builds.
const FAKE_BUILD = `node -e "const fs=require('fs');fs.mkdirSync('dist',{recursive:true});fs.writeFileSync('dist/start.js','');fs.appendFileSync('builds','x')"`;

/** `npm start`'s prestart step: builds when the sources' content changed, not when their timestamps did. */
describe('scripts/build-if-needed.mjs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'build-if-needed-'));
  const builds = () => (existsSync(join(dir, 'builds')) ? readFileSync(join(dir, 'builds'), 'utf8').length : 0);
  const prestart = async () => (await run(process.execPath, [script], { cwd: dir, env: { ...process.env, BUILD_COMMAND: FAKE_BUILD } })).stdout;

  beforeAll(() => {
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src', 'main.ts'), 'export const a = 1;\n');
    writeFileSync(join(dir, 'package-lock.json'), '{"lockfileVersion":3}\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('builds once, then not again while the content is the same, whatever the timestamps', async () => {
    expect(await prestart()).toContain('Building (no build yet)');
    expect(builds()).toBe(1);
    expect(await prestart()).toBe('');
    // What `npm install` does to an unchanged lock file: the same bytes, a newer mtime.
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(dir, 'package-lock.json'), later, later);
    writeFileSync(join(dir, 'src', 'main.ts'), 'export const a = 1;\n');
    expect(await prestart()).toBe('');
    expect(builds()).toBe(1);
  });

  it('counts a build the user ran (npm run build, whose postbuild step stamps it): npm start does not build again', async () => {
    writeFileSync(join(dir, 'src', 'main.ts'), 'export const a = 3;\n');
    // What `npm run build` leaves: dist/ built from these sources, then its postbuild step.
    await run(process.execPath, ['-e', "require('fs').writeFileSync('dist/start.js', '')"], { cwd: dir });
    expect((await run(process.execPath, [script, '--stamp'], { cwd: dir })).stdout).toBe('');
    const before = builds();
    expect(await prestart()).toBe('');
    expect(builds()).toBe(before);
  });

  it('builds again when a source changes, or when dist/ is gone', async () => {
    writeFileSync(join(dir, 'src', 'main.ts'), 'export const a = 2;\n');
    expect(await prestart()).toContain('Building (sources changed');
    expect(builds()).toBe(2);
    rmSync(join(dir, 'dist'), { recursive: true });
    expect(await prestart()).toContain('Building (no build yet)');
    expect(builds()).toBe(3);
  });
});
