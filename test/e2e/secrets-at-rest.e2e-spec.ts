import { randomBytes } from 'node:crypto';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { keyId } from '../../src/common/crypto/data-cipher.js';
import { cliOk } from '../support/cli.js';
import { useStack } from '../support/fixture.js';
import { type TestProject, createProject, http, startApi, testConfig, waitFor } from '../support/harness.js';
import type { ReceivedRequest } from '../support/receiver.js';
import { verifyStandardWebhook, verifyVoucherifySignature } from '../support/verify-snippets.js';

const KEY_1 = randomBytes(32).toString('base64');
const KEY_2 = randomBytes(32).toString('base64');
const ID_1 = keyId(Buffer.from(KEY_1, 'base64'));
const ID_2 = keyId(Buffer.from(KEY_2, 'base64'));
const BASE = { WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32', RATE_LIMIT_PER_SECOND: '0' };
const HEADERS = { Authorization: 'Bearer tok-9f3c1a77e2', 'X-Team': 'crm' };

/**
 * Webhook secrets and custom header values at rest (issue 36): sealed with DATA_ENCRYPTION_KEY when it is set
 * (read here by SQL, never plain), opened wherever they are read (the API's answers, the worker's
 * deliveries, signed with the opened secret), rotation of the signing secret and of the key, rows written
 * before the key kept working and sealed by `cli.js encrypt-secrets`.
 */
describe('secrets at rest', () => {
  const stack = useStack({ config: { ...BASE, DATA_ENCRYPTION_KEY: KEY_1 }, receiver: true, worker: true, pg: true, projects: ['Sealed project'] });
  const { receiver } = stack;
  const apis: NestExpressApplication[] = [];
  afterAll(async () => {
    for (const api of apis) await api.close();
  });

  const stored = async (project: TestProject, distributionId: string) => {
    const secrets = (await stack.pg.query<{ secret: string; previous_secret: string | null }>('SELECT secret, previous_secret FROM webhook_secrets WHERE project_id = $1', [project.project.id])).rows[0];
    const headers = (await stack.pg.query<{ h: string }>('SELECT custom_headers::text AS h FROM distributions WHERE id = $1', [distributionId])).rows[0].h;
    return { ...secrets, headers };
  };
  const distribution = async (app: NestExpressApplication, who: TestProject, path: string) => {
    const res = await http(app).post('/v1/distributions').set(who.headers).send({ name: path, trigger: 'customer.voucher.loyalty_card.points_added', target_url: receiver.url(path), custom_headers: HEADERS });
    expect(res.status).toBe(200);
    expect(res.body.custom_headers).toEqual(HEADERS);
    return res.body.id as string;
  };
  const secretOf = async (app: NestExpressApplication, who: TestProject) => {
    const res = await http(app).get('/v1/webhook-secret').set(who.headers);
    expect(res.status).toBe(200);
    return res.body.secret as string;
  };
  /** A test delivery sent by the worker, as the receiver got it. */
  const delivered = async (app: NestExpressApplication, who: TestProject, distributionId: string, path: string): Promise<ReceivedRequest> => {
    const before = receiver.on(path).length;
    expect((await http(app).post(`/v1/distributions/${distributionId}/test`).set(who.headers).send({})).status).toBe(200);
    return waitFor(async () => receiver.on(path)[before]);
  };
  const signedWith = (request: ReceivedRequest, secrets: string[]) => {
    expect(verifyVoucherifySignature(request.body, request.headers['x-voucherify-signature'], [secrets[0]])).toBe(true);
    for (const secret of secrets) expect(verifyStandardWebhook(request.body, request.headers, secret)).toEqual(JSON.parse(request.body));
    expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(secrets.length);
    expect(request.headers.authorization).toBe(HEADERS.Authorization);
    expect(request.headers['x-team']).toBe(HEADERS['X-Team']);
  };
  const cli = async (env: Record<string, string>) => {
    const stdout = await cliOk(['encrypt-secrets'], { DATA_ENCRYPTION_KEY: '', DATA_ENCRYPTION_PREVIOUS_KEYS: '', ...env });
    return JSON.parse(stdout) as { key_id: string | null; webhook_secrets: { rewritten: number; unreadable: number }; distributions: { rewritten: number; unreadable: number } };
  };

  it('with a key, the secret and the custom headers are stored sealed; the API answers them opened; deliveries carry the headers and verify with the secret', async () => {
    const dist = await distribution(stack.app, stack.a, '/sealed');
    const secret = await secretOf(stack.app, stack.a);
    const row = await stored(stack.a, dist);
    expect(row.secret).toMatch(new RegExp(`^enc:v1:${ID_1}:`));
    expect(row.secret).not.toContain(secret.slice('whsec_'.length, 20));
    expect(row.headers).toMatch(/^\{":sealed": "enc:v1:/);
    for (const plain of ['tok-9f3c1a77e2', 'crm', 'Authorization']) expect(row.headers).not.toContain(plain);
    expect((await http(stack.app).get(`/v1/distributions/${dist}`).set(stack.a.headers)).body.custom_headers).toEqual(HEADERS);
    expect((await http(stack.app).get('/v1/distributions').set(stack.a.headers)).body.data[0].custom_headers).toEqual(HEADERS);
    signedWith(await delivered(stack.app, stack.a, dist, '/sealed'), [secret]);

    // A change is sealed too; no header ever reaches the logs' queue payloads (jobs carry ids only).
    const put = await http(stack.app).put(`/v1/distributions/${dist}`).set(stack.a.headers).send({ custom_headers: { ...HEADERS, 'X-Extra': 'more' } });
    expect(put.body.custom_headers).toEqual({ ...HEADERS, 'X-Extra': 'more' });
    expect((await stored(stack.a, dist)).headers).not.toContain('more');
    await http(stack.app).put(`/v1/distributions/${dist}`).set(stack.a.headers).send({ custom_headers: HEADERS });
  });

  it('a rotation of the signing secret: the new one is sealed, and both sign during the grace period', async () => {
    const dist = await distribution(stack.app, stack.a, '/rotated');
    const old = await secretOf(stack.app, stack.a);
    const rotated = await http(stack.app).post('/v1/webhook-secret/rotate').set(stack.a.headers).send({ expire_previous_in_seconds: 3600 });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.secret as string;
    expect(fresh).not.toBe(old);
    const row = await stored(stack.a, dist);
    for (const value of [row.secret, row.previous_secret]) expect(value).toMatch(new RegExp(`^enc:v1:${ID_1}:`));
    expect(await secretOf(stack.app, stack.a)).toBe(fresh);
    signedWith(await delivered(stack.app, stack.a, dist, '/rotated'), [fresh, old]);
  });

  it('rows written without a key keep working with one; cli.js encrypt-secrets seals them, re-seals them under a new key, and stores them plain again without one', async () => {
    const plainApi = await startApi(testConfig(BASE));
    apis.push(plainApi);
    const project = await createProject(plainApi, 'Plain project');
    const dist = await distribution(plainApi, project, '/plain');
    const secret = await secretOf(plainApi, project);
    const plain = await stored(project, dist);
    expect(plain).toMatchObject({ secret, previous_secret: null });
    expect(JSON.parse(plain.headers)).toEqual(HEADERS);

    // Read as they are by the API and the worker that have a key.
    expect(await secretOf(stack.app, project)).toBe(secret);
    expect((await http(stack.app).get(`/v1/distributions/${dist}`).set(project.headers)).body.custom_headers).toEqual(HEADERS);
    signedWith(await delivered(stack.app, project, dist, '/plain'), [secret]);

    // The migration path: sealed under the key, still the same values.
    const sealed = await cli({ DATA_ENCRYPTION_KEY: KEY_1 });
    expect(sealed).toMatchObject({ key_id: ID_1, webhook_secrets: { unreadable: 0 }, distributions: { unreadable: 0 } });
    expect(sealed.webhook_secrets.rewritten).toBeGreaterThanOrEqual(1);
    expect(sealed.distributions.rewritten).toBeGreaterThanOrEqual(1);
    let row = await stored(project, dist);
    expect(row.secret).toMatch(new RegExp(`^enc:v1:${ID_1}:`));
    expect(row.headers).not.toContain('tok-9f3c1a77e2');
    expect(await secretOf(stack.app, project)).toBe(secret);
    signedWith(await delivered(stack.app, project, dist, '/plain'), [secret]);
    // Run again: nothing left to do.
    expect(await cli({ DATA_ENCRYPTION_KEY: KEY_1 })).toMatchObject({ webhook_secrets: { rewritten: 0 }, distributions: { rewritten: 0 } });

    // A key rotation: the new key seals, the old one only opens, until everything is sealed again.
    const rekeyed = await cli({ DATA_ENCRYPTION_KEY: KEY_2, DATA_ENCRYPTION_PREVIOUS_KEYS: KEY_1 });
    expect(rekeyed).toMatchObject({ key_id: ID_2, webhook_secrets: { unreadable: 0 }, distributions: { unreadable: 0 } });
    row = await stored(project, dist);
    expect(row.secret).toMatch(new RegExp(`^enc:v1:${ID_2}:`));
    expect(row.headers).toContain(`enc:v1:${ID_2}:`);
    const keyTwo = { ...BASE, DATA_ENCRYPTION_KEY: KEY_2 };
    const api2 = await startApi(testConfig(keyTwo));
    apis.push(api2);
    await stack.startWorker(testConfig(keyTwo));
    expect(await secretOf(api2, project)).toBe(secret);
    signedWith(await delivered(api2, project, dist, '/plain'), [secret]);

    // The old key alone no longer opens them: the API answers 503 (not the value, not a 500), and a delivery
    // is a recorded failed attempt (the retry schedule applies), not a worker stuck on it.
    const stale = await http(stack.app).get('/v1/webhook-secret').set(project.headers);
    expect(stale.status).toBe(503);
    expect(stale.body).toMatchObject({ key: 'service_unavailable', details: 'A stored webhook setting cannot be decrypted with the keys this service is configured with' });
    await stack.startWorker(testConfig({ ...BASE, DATA_ENCRYPTION_KEY: KEY_1 }));
    const test = await http(api2).post(`/v1/distributions/${dist}/test`).set(project.headers).send({});
    expect(test.status).toBe(200);
    const attempt = await waitFor(async () => {
      const got = await http(api2).get(`/v1/distributions/${dist}/deliveries/${test.body.id}`).set(project.headers);
      return got.body.attempts?.[0];
    });
    expect(attempt).toMatchObject({ status_code: null, error: expect.stringContaining('cannot be decrypted with the configured keys') });

    // Encryption off: with no key and the last one kept to read, everything is stored plain again.
    expect(await cli({ DATA_ENCRYPTION_PREVIOUS_KEYS: KEY_2 })).toMatchObject({ key_id: null, webhook_secrets: { unreadable: 0 }, distributions: { unreadable: 0 } });
    row = await stored(project, dist);
    expect(row.secret).toBe(secret);
    expect(JSON.parse(row.headers)).toEqual(HEADERS);
  }, 90_000);
});
