/**
 * The documentation cites only what exists: every relative link of README.md, bench/README.md and docs/*.md
 * points at a file in the repository (and at a heading that exists), every repository path they name in
 * backticks exists, and README.md's configuration table is exactly the variables environment.ts reads,
 * with their defaults.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { EnvironmentVariables } from '../../src/config/environment.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const TRACKED = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
const DOCS = TRACKED.filter((file) => file === 'README.md' || file === 'bench/README.md' || /^docs\/[^/]+\.md$/.test(file));
/** Build output and generated files the documents mention on purpose, saying they are not committed. */
const GENERATED = [/^dist\//, /^dashboard\/src\/api\/schema\.d\.ts$/, /^bench\/results\//];

const text = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const exists = (path: string) => TRACKED.includes(path) || TRACKED.some((file) => file.startsWith(`${path.replace(/\/$/, '')}/`));

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
const anchorsOf = (file: string) => new Set([...text(file).matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1])));

/** Markdown outside fenced code blocks (a block's text is code, not a citation). */
const prose = (markdown: string) => markdown.replace(/^```[\s\S]*?^```$/gm, '');

describe('documentation', () => {
  it('finds the documents', () => {
    expect(DOCS).toEqual(expect.arrayContaining(['README.md', 'docs/architecture.md', 'docs/decisions.md', 'docs/errors.md', 'docs/webhooks.md']));
  });

  it.each(DOCS)('%s: every relative link points at a file of the repository, and at a heading that exists', (file) => {
    const broken: string[] = [];
    for (const [, target] of prose(text(file)).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:…
      const [path, anchor] = target.split('#');
      const resolved = path === '' ? file : normalize(join(dirname(file), decodeURIComponent(path)));
      if (!exists(resolved)) broken.push(`${target}: ${resolved} is not in the repository`);
      else if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) broken.push(`${target}: no heading #${anchor} in ${resolved}`);
    }
    expect(broken).toEqual([]);
  });

  it.each(DOCS)('%s: every repository path named in backticks exists', (file) => {
    const topLevel = new Set(TRACKED.filter((f) => f.includes('/')).map((f) => f.split('/')[0]));
    const missing: string[] = [];
    for (const [, path] of text(file).matchAll(/`([.\w-]+\/[^`\s*]*)`/g)) {
      if (!topLevel.has(path.split('/')[0]) || GENERATED.some((re) => re.test(path))) continue;
      if (!exists(path)) missing.push(path);
    }
    expect(missing).toEqual([]);
  });

  it('README.md: the configuration table lists exactly the variables environment.ts reads, with their defaults', () => {
    const readme = text('README.md');
    const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1));
    const documented = new Map<string, string>();
    for (const [, names, defaultCell] of section.matchAll(/^\| (`[A-Z0-9_]+`(?:, `[A-Z0-9_]+`)*) \| ([^|]+) \|/gm)) {
      for (const [, name] of names.matchAll(/`([A-Z0-9_]+)`/g)) documented.set(name, defaultCell.trim());
    }
    const defaults = new EnvironmentVariables() as unknown as Record<string, string | number | boolean | undefined>;
    expect([...documented.keys()].sort()).toEqual(Object.keys(defaults).sort());
    for (const [name, cell] of documented) {
      const value = defaults[name];
      const expected = value === undefined ? 'unset' : value === '' ? 'empty' : `\`${String(value)}\``;
      expect({ name, default: cell }).toEqual({ name, default: expected });
    }
  });
});
