import { cli as cliResult, cliOk } from '../support/cli.js';
import { useStack } from '../support/fixture.js';
import { type TestProject, waitFor } from '../support/harness.js';
import { enrol, pointsCampaign, unique } from '../support/points.js';

const PING = '/v1/diagnostics/pings/ping_x';

/** `cli.js <args>` (run in this process: test/support/cli.ts) on the file's database; its stdout, or a rejection with its stderr. */
const cli = (...args: string[]): Promise<string> => cliOk(args);

async function cliFails(...args: string[]): Promise<{ code: number; stderr: string }> {
  const { code, stderr } = await cliResult(args);
  if (code === 0) throw new Error(`cli.js ${args.join(' ')} succeeded`);
  return { code, stderr };
}

describe('several keys per project: cli.js rotate-key, list-keys, revoke-key', () => {
  // A short key cache, so a revocation by another process (the CLI) shows within the test.
  const stack = useStack({ config: { APP_KEY_CACHE_MS: '300' } });

  it('rotates with overlap, revokes, and keeps the last key unless --last', async () => {
    const created = JSON.parse(await cli('create-project', '--name', 'Keys'));
    const first = { 'X-App-Id': created.app_id, 'X-App-Token': created.app_token };
    const projectId: string = created.project.id;

    const rotated = JSON.parse(await cli('rotate-key', projectId, '--name', 'checkout 2026-11'));
    expect(rotated).toEqual({ project_id: projectId, app_id: expect.any(String), app_token: expect.stringMatching(/^[0-9a-f]{64}$/), name: 'checkout 2026-11' });
    const second = { 'X-App-Id': rotated.app_id, 'X-App-Token': rotated.app_token };

    // Both keys work, for the same project: a ping made with one is seen with the other.
    const ping = await stack.http().post('/v1/diagnostics/pings').set(first).send({ note: 'one project' });
    expect(ping.status).toBe(200);
    expect((await stack.http().get(`/v1/diagnostics/pings/${ping.body.id}`).set(second)).body.note).toBe('one project');

    const listed = JSON.parse(await cli('list-keys', projectId));
    expect(listed).toEqual({
      project_id: projectId,
      keys: [
        { app_id: created.app_id, name: 'Primary', created_at: expect.any(String) },
        { app_id: rotated.app_id, name: 'checkout 2026-11', created_at: expect.any(String) },
      ],
    });
    expect(JSON.stringify(listed)).not.toContain(created.app_token);

    expect(JSON.parse(await cli('revoke-key', created.app_id))).toEqual({ revoked: created.app_id, project_id: projectId });
    // Another process: the API's key cache (here 300 ms) bounds how long the revoked key still works.
    await waitFor(async () => ((await stack.http().get(PING).set(first)).status === 401 ? true : undefined), { timeoutMs: 10_000 });
    expect((await stack.http().get(PING).set(second)).status).toBe(404);

    const last = await cliFails('revoke-key', rotated.app_id);
    expect(last.code).toBe(1);
    expect(last.stderr).toContain("is its project's last key");
    expect((await stack.http().get(PING).set(second)).status).toBe(404);

    expect(JSON.parse(await cli('revoke-key', rotated.app_id, '--last'))).toEqual({ revoked: rotated.app_id, project_id: projectId });
    await waitFor(async () => ((await stack.http().get(PING).set(second)).status === 401 ? true : undefined), { timeoutMs: 10_000 });
    expect(JSON.parse(await cli('list-keys', projectId)).keys).toEqual([]);
  });

  it('names keys (create-project --key-name, rotate-key with and without --name) and events carry the name of the key that caused them', async () => {
    const created = JSON.parse(await cli('create-project', '--name', 'Named keys', '--key-name', 'Checkout'));
    expect(created).toEqual({ project: { id: expect.any(String), name: 'Named keys', created_at: expect.any(String) }, app_id: expect.any(String), app_token: expect.any(String), name: 'Checkout' });
    const projectId: string = created.project.id;
    const rotated = JSON.parse(await cli('rotate-key', projectId));
    const today = new Date().toISOString().slice(0, 10);
    // Without --name: `Key <UTC date>` (a minute either side of midnight: the date the server used).
    expect(rotated.name).toMatch(/^Key \d{4}-\d{2}-\d{2}$/);
    expect(Math.abs(Date.parse(rotated.name.slice(4)) - Date.parse(today))).toBeLessThanOrEqual(86_400_000);
    expect(JSON.parse(await cli('list-keys', projectId)).keys.map((key: { name: string }) => key.name)).toEqual(['Checkout', rotated.name]);

    const first = { ...created, headers: { 'X-App-Id': created.app_id, 'X-App-Token': created.app_token } } as TestProject;
    const second = { ...first, app_id: rotated.app_id, app_token: rotated.app_token, headers: { 'X-App-Id': rotated.app_id, 'X-App-Token': rotated.app_token } };
    const { campaign } = await pointsCampaign(stack.app, first, [{ points: 5 }]);
    const code = await enrol(stack.app, first, campaign, unique('named-key-holder'));
    for (const who of [first, second]) {
      const res = await stack.http().post(`/v1/loyalties/members/${encodeURIComponent(code)}/balance`).set(who.headers).send({ points: 10 });
      expect(res.status).toBe(200);
    }
    const events = await stack.http().get('/v1/events').query({ type: 'customer.voucher.loyalty_card.points_added' }).set(first.headers);
    expect(events.body.data.map((event: { event_source: unknown }) => event.event_source)).toEqual([
      { channel: 'API', api_key: { name: rotated.name, app_id: rotated.app_id } },
      { channel: 'API', api_key: { name: 'Checkout', app_id: created.app_id } },
    ]);
    // Voucherify's order: name, then app_id. The event names the key, never its token.
    expect(Object.keys(events.body.data[0].event_source.api_key)).toEqual(['name', 'app_id']);
    expect(JSON.stringify(events.body)).not.toContain(created.app_token);
    expect(JSON.stringify(events.body)).not.toContain(rotated.app_token);

    // A project whose keys were all revoked: its next key, unnamed, is its first again.
    expect(JSON.parse(await cli('revoke-key', created.app_id))).toEqual({ revoked: created.app_id, project_id: projectId });
    expect(JSON.parse(await cli('revoke-key', rotated.app_id, '--last'))).toEqual({ revoked: rotated.app_id, project_id: projectId });
    expect(JSON.parse(await cli('rotate-key', projectId)).name).toBe('Primary');
  });

  it('refuses unknown projects and keys, and bad arguments, with exit code 1 and a message', async () => {
    expect(await cliFails('rotate-key', 'proj_nope')).toMatchObject({ code: 1, stderr: 'Project proj_nope does not exist\n' });
    expect(await cliFails('list-keys', 'proj_nope')).toMatchObject({ code: 1, stderr: 'Project proj_nope does not exist\n' });
    expect(await cliFails('revoke-key', 'no-such-key')).toMatchObject({ code: 1, stderr: 'No application key no-such-key\n' });
    expect(await cliFails('rotate-key')).toMatchObject({ code: 1, stderr: expect.stringContaining('usage: rotate-key') });
    expect(await cliFails('create-project', '--key-name', ' ')).toMatchObject({ code: 1, stderr: '--key-name must be 1-200 characters\n' });
    expect(await cliFails('rotate-key', 'proj_nope', '--name', 'x'.repeat(201))).toMatchObject({ code: 1, stderr: '--name must be 1-200 characters\n' });
    // A configuration the CLI refuses: exit code 1 and the setting named (in this process, without ending it).
    expect(await cliResult(['list-keys', 'proj_nope'], { DATABASE_POOL_SIZE: '0' })).toMatchObject({ code: 1, stderr: expect.stringContaining('DATABASE_POOL_SIZE') });
  });
});
