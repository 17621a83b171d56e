/**
 * docs/rewards.md, run as a newcomer runs it: every `sh` block, in order, in one shell against a listening API
 * (with curl and jq), and each command's answer compared with the `# …` line under it: every `"field":value`
 * pair the line shows (those not shortened with `…`) must be in the answer, and a bare status code must be the
 * status printed. An edit of the page that stops working fails here.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { useStack } from '../support/fixture.js';

const run = promisify(execFile);
const DOC = new URL('../../docs/rewards.md', import.meta.url);
const DOC_URL = 'http://localhost:3000';

interface Step {
  command: string;
  /** The `# …` line under the command: what it answers. */
  shows?: string;
}

/** The commands of the page's `sh` blocks, continuation lines joined, each with the line that shows its answer. */
function steps(markdown: string): Step[] {
  const lines = [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].flatMap((m) => m[1].replace(/\\\n\s*/g, ' ').split('\n'));
  const found: Step[] = [];
  for (const line of lines) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const last = found.at(-1);
      if (last && last.shows === undefined) last.shows = line.slice(1).trim();
      continue;
    }
    found.push({ command: line });
  }
  return found;
}

/** The `"field":value` pairs a shown answer holds in full (a string shortened with `…` is left out). */
function pairs(shown: string): string[] {
  return [...shown.matchAll(/"[a-z_]+":("[^"…]*"|-?\d+(?:\.\d+)?|true|false|null)(?=[,}\]])/g)].map((m) => m[0]);
}

describe('docs/rewards.md', () => {
  const stack = useStack({ listen: true, projects: ['Rewards walkthrough'] });

  it('runs from the first block to the last, each answer as the page shows it', async () => {
    const page = steps(await readFile(DOC, 'utf8'));
    expect(page.length).toBeGreaterThan(15);
    const script = page.map((step, i) => `${step.command.replaceAll(DOC_URL, stack.baseUrl)}\nprintf '\\n@@step %d@@\\n' ${i}`).join('\n');
    const { stdout } = await run('sh', ['-ec', script], { env: { ...process.env, APP_ID: stack.a.app_id, APP_TOKEN: stack.a.app_token } });
    const outputs = stdout.split(/\n@@step \d+@@\n/);
    expect(outputs).toHaveLength(page.length + 1);
    const wrong: string[] = [];
    let checked = 0;
    page.forEach((step, i) => {
      const answer = outputs[i].trim();
      if (step.shows === undefined) return;
      checked += 1;
      const expected = /^\d{3}$/.test(step.shows) ? [step.shows] : pairs(step.shows);
      if (!expected.length) wrong.push(`${step.command}\n  shows nothing to check: ${step.shows}`);
      for (const pair of expected) if (!answer.includes(pair)) wrong.push(`${step.command}\n  answered ${answer.slice(0, 400)}\n  without ${pair}`);
    });
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(10);
  });
});
