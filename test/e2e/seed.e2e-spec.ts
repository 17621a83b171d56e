import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { cli, cliOk } from '../support/cli.js';
import { useStack } from '../support/fixture.js';
import { testConfig } from '../support/harness.js';

const run = promisify(execFile);

describe('node dist/cli.js seed (bulk members for benchmarks)', () => {
  const env = { ...process.env, DATABASE_URL: testConfig().databaseUrl, LOG_LEVEL: 'warn' };
  const stack = useStack({ pg: true });
  const { pg: db } = stack;

  it('makes a project whose program has N members, each with a customer and a card, listable through the API', async () => {
    const seeded = JSON.parse(await cliOk(['seed', '--members', '250']));
    expect(seeded).toMatchObject({ members: 250, program_id: expect.stringMatching(/^lprg_/), campaign_id: expect.stringMatching(/^camp_/) });

    const [counts] = (
      await db.query(
        `SELECT (SELECT count(*)::int FROM members WHERE program_id = $1) AS members,
                (SELECT count(DISTINCT customer_id)::int FROM members WHERE program_id = $1) AS customers,
                (SELECT count(*)::int FROM vouchers WHERE campaign_id = $2 AND member_id IS NOT NULL) AS cards,
                (SELECT vouchers_count FROM campaigns WHERE id = $2) AS vouchers_count`,
        [seeded.program_id, seeded.campaign_id],
      )
    ).rows;
    expect(counts).toEqual({ members: 250, customers: 250, cards: 250, vouchers_count: 250 });

    const headers = { 'X-App-Id': seeded.app_id, 'X-App-Token': seeded.app_token };
    const ids = new Set<string>();
    let cursor: string | undefined;
    do {
      const res = await stack.http().get(`/v2/loyalties/programs/${seeded.program_id}/members?limit=100${cursor ? `&cursor=${cursor}` : ''}`).set(headers);
      expect(res.status).toBe(200);
      for (const member of res.body.data) ids.add(member.id);
      cursor = res.body.cursor?.next;
    } while (cursor);
    expect(ids.size).toBe(250);

    const member = [...ids][0];
    const one = await stack.http().get(`/v2/loyalties/programs/${seeded.program_id}/members/${member}`).set(headers);
    expect(one.body.cards).toHaveLength(1);
    expect(one.body.cards[0].card.code).toMatch(/^SEED-/);
  });

  it("is not bound by the requests' statement timeout (DATABASE_QUERY_TIMEOUT_MS)", async () => {
    // 1 ms would fail nearly every statement of a request; the seed's 100,000-row inserts must not get it.
    expect(JSON.parse(await cliOk(['seed', '--members', '2000', '--project-name', 'No cap'], { DATABASE_QUERY_TIMEOUT_MS: '1' }))).toMatchObject({ members: 2000 });
  });

  it('refuses a missing or bad --members with a message', async () => {
    const message = '--members must be a whole number from 1 to 10,000,000';
    // The first as a real process: the entry file's exit code 1 and message on stderr; the rest in this process.
    const failure = await run(process.execPath, ['dist/cli.js', 'seed'], { env }).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 1, stderr: expect.stringContaining(message) });
    for (const args of [['--members', '0'], ['--members', 'lots'], ['--members', '10000001']]) {
      expect(await cli(['seed', ...args])).toMatchObject({ code: 1, stderr: expect.stringContaining(message) });
    }
  });
});
