/**
 * README.md's member-list paging example and its SDK snippet, run as a reader runs them: the curl commands
 * through sh against a listening API, the snippet as an .mjs file in a project of its own under plain Node.
 * The commands are read from the README, so an edit there that stops working fails here.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { useStack } from '../support/fixture.js';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
const README_URL = 'http://localhost:3000';

/** The fenced blocks of `markdown` in language `lang`, each as its text. */
function blocks(markdown: string, lang: string): string[] {
  return [...markdown.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1]);
}

/** The shell commands of a block, continuation lines joined, comments dropped. */
function commands(block: string): string[] {
  return block
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'));
}

describe('README.md examples', () => {
  const stack = useStack({ listen: true, projects: ['README examples'] });
  let readme: string;
  let base: string;
  let campaign: { id: string; program_id: string };

  /** A command of the README run by sh, with the README's variables in the environment; its output parsed. */
  async function sh(command: string, env: Record<string, string>): Promise<Record<string, unknown>> {
    const { stdout } = await run('sh', ['-c', command.replaceAll(README_URL, base)], { env: { ...process.env, APP_ID: stack.a.app_id, APP_TOKEN: stack.a.app_token, ...env } });
    return JSON.parse(stdout);
  }

  beforeAll(async () => {
    readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    base = stack.baseUrl;
    // The README's campaign, AUTO_UPDATE so that enrolment makes each card (no worker needed here).
    const res = await stack
      .http()
      .post('/v1/loyalties')
      .set(stack.a.headers)
      .send({ name: 'Summer Loyalty', type: 'AUTO_UPDATE', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 }, code_config: { pattern: 'L-####-####' } } });
    if (res.status !== 200) throw new Error(`campaign: ${res.status} ${JSON.stringify(res.body)}`);
    campaign = res.body;
  });

  describe('member list paging', () => {
    let first: string;
    let second: string;
    const active: string[] = [];

    beforeAll(async () => {
      const list = blocks(readme, 'sh').flatMap(commands).filter((command) => command.includes('/v2/loyalties/programs/$PROGRAM_ID/members?'));
      expect(list).toHaveLength(2);
      [first, second] = list;
      // 51 ACTIVE members (one more than the README's limit) and an INACTIVE one the filter leaves out.
      for (let i = 0; i < 52; i += 1) {
        const res = await stack.http()
          .post(`/v2/loyalties/programs/${campaign.program_id}/members`)
          .set(stack.a.headers)
          .send({ customer_identification: { type: 'customer_source_id', customer_source_id: `reader-${i}@example.com` }, status: i === 20 ? 'INACTIVE' : 'ACTIVE' });
        expect(res.status).toBe(200);
        if (i !== 20) active.unshift(res.body.id); // newest first, as -created_at lists them
      }
    });

    it('the second request is the first one with the same filters and order, plus the cursor', () => {
      expect(first).toMatch(/[?&]order=[^&"]+/);
      expect(first).toMatch(/[?&]filters\[/);
      expect(first).not.toContain('cursor=');
      const url = (command: string) => /^curl -sg "([^"]+)"/.exec(command)?.[1] ?? '';
      expect(url(second)).toBe(`${url(first)}&cursor=$NEXT`);
      expect(second.replace(url(second), '')).toBe(first.replace(url(first), ''));
    });

    it('runs: the first page gives cursor.next, the second request with it gives the rest', async () => {
      const page1 = (await sh(first, { PROGRAM_ID: campaign.program_id })) as { data: { id: string; status: string }[]; cursor: { next: string } };
      expect(page1.data.map((m) => m.id)).toEqual(active.slice(0, 50));
      expect(page1.cursor.next).toMatch(/^lcrsmbr_[0-9a-f]+$/);
      const page2 = (await sh(second, { PROGRAM_ID: campaign.program_id, NEXT: page1.cursor.next })) as { data: { id: string }[]; cursor: unknown };
      expect(page2).toMatchObject({ data: [{ id: active[50] }], cursor: null, object: 'list' });
    });

    it('as the README says: other filters or order are refused, another limit is not', async () => {
      const page1 = (await sh(first, { PROGRAM_ID: campaign.program_id })) as { cursor: { next: string } };
      const env = { PROGRAM_ID: campaign.program_id, NEXT: page1.cursor.next };
      const withoutFilters = second.replace(/&filters[^&"]*/g, '');
      const otherOrder = second.replace('order=-created_at', 'order=created_at');
      expect(withoutFilters).not.toBe(second);
      expect(otherOrder).not.toBe(second);
      for (const command of [withoutFilters, otherOrder]) expect(await sh(command, env)).toMatchObject({ code: 400, key: 'invalid_or_expired_cursor' });
      expect(await sh(second.replace('limit=50', 'limit=10'), env)).toMatchObject({ data: [{ id: active[50] }], cursor: null });
    });
  });

  describe('the SDK snippet in an ES module', () => {
    let dir: string;
    beforeAll(async () => {
      // A project of its own with @voucherify/sdk installed (this repository's copy), as a reader has it.
      dir = await mkdtemp(join(tmpdir(), 'readme-sdk-'));
      await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    });
    afterAll(() => rm(dir, { recursive: true, force: true }));

    const snippet = () => {
      const found = blocks(readme, 'js').filter((block) => block.includes("from '@voucherify/sdk'"));
      expect(found).toHaveLength(1);
      return found[0];
    };

    it('imports the default export and runs under Node as members.mjs, printing what the README shows', async () => {
      const code = snippet();
      expect(code).toContain("import VoucherifySdk from '@voucherify/sdk';");
      expect(code).toContain(`apiUrl: '${README_URL}'`);
      await stack.http()
        .post(`/v2/loyalties/programs/${campaign.program_id}/members`)
        .set(stack.a.headers)
        .send({ customer_identification: { type: 'customer_source_id', customer_source_id: 'alice@example.com' } });
      const before = (await stack.http().get(`/v1/loyalties/${campaign.id}/members`).set(stack.a.headers)).body.total as number;
      await writeFile(join(dir, 'members.mjs'), code.replace(README_URL, base));
      const { stdout } = await run(process.execPath, ['members.mjs'], { cwd: dir, env: { ...process.env, APP_ID: stack.a.app_id, APP_TOKEN: stack.a.app_token } });
      // The README's comment with each … as one token: "L-… cust_… 2" (2 there: Alice and Bob).
      const shown = /^\/\/ (\S+ \S+) \d+ /m.exec(code)?.[1];
      expect(shown).toBe('L-… cust_…');
      const [cardCode, holder, total] = stdout.trim().split(' ');
      expect(cardCode).toMatch(/^L-[0-9A-Za-z]{4}-[0-9A-Za-z]{4}$/);
      expect(holder).toMatch(/^cust_[0-9A-Za-z]{24}$/);
      expect(Number(total)).toBe(before + 1);
      const bob = await stack.http().get('/v1/customers/bob@example.com').set(stack.a.headers);
      expect(bob.body.id).toBe(holder);
    });

    it('the named import the README warns about fails in an ES module, as it says', async () => {
      await writeFile(join(dir, 'named.mjs'), "import { VoucherifyServerSide } from '@voucherify/sdk';\nconsole.log(typeof VoucherifyServerSide);\n");
      const failed = await run(process.execPath, ['named.mjs'], { cwd: dir }).then(
        () => null,
        (error: { stderr: string }) => error.stderr,
      );
      expect(failed).toContain("Named export 'VoucherifyServerSide' not found");
      expect(readme).toContain("\"Named export\n'VoucherifyServerSide' not found\"");
    });
  });
});
