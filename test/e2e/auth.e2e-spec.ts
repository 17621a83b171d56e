import { DataSource } from 'typeorm';
import { AuthService, hashToken } from '../../src/auth/auth.service.js';
import { useStack } from '../support/fixture.js';
import { http, startApi, testConfig, waitFor } from '../support/harness.js';

const UNAUTHORIZED = { code: 401, key: 'unauthorized', message: 'Unauthorized' };

describe('application keys (X-App-Id / X-App-Token)', () => {
  const stack = useStack({ projects: ['A', 'B'] });

  it('answers 401 with the exact Voucherify body when both headers are missing', async () => {
    const res = await stack.http().get('/v1/diagnostics/pings/ping_x');
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
    expect(res.headers['x-request-id']).toMatch(/^v-[0-9a-f]+$/);
  });

  it('answers 401 when X-App-Id is missing', async () => {
    const res = await stack.http().get('/v1/diagnostics/pings/ping_x').set('X-App-Token', stack.a.app_token);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('answers 401 when X-App-Token is missing', async () => {
    const res = await stack.http().get('/v1/diagnostics/pings/ping_x').set('X-App-Id', stack.a.app_id);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('answers 401 for a wrong token, of any length', async () => {
    for (const token of ['wrong', `${stack.a.app_token}0`, stack.a.app_token.slice(0, -1)]) {
      const res = await stack.http().get('/v1/diagnostics/pings/ping_x').set('X-App-Id', stack.a.app_id).set('X-App-Token', token);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(UNAUTHORIZED);
    }
  });

  it('answers 401 for an unknown app id', async () => {
    const res = await stack.http().get('/v1/diagnostics/pings/ping_x').set('X-App-Id', 'no-such-app').set('X-App-Token', stack.a.app_token);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it("answers 401 for another application's token", async () => {
    const res = await stack.http().get('/v1/diagnostics/pings/ping_x').set('X-App-Id', stack.a.app_id).set('X-App-Token', stack.b.app_token);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('lets a valid key through', async () => {
    const res = await stack.http().get('/v1/diagnostics/pings/ping_x').set(stack.a.headers);
    // Past the guard: the route itself answers (the ping does not exist).
    expect(res.status).toBe(404);
    expect(res.body.key).toBe('not_found');
  });

  it("never shows one project's resources to another (404, no data)", async () => {
    const created = await stack.http().post('/v1/diagnostics/pings').set(stack.a.headers).send({ note: 'secret of A' });
    expect(created.status).toBe(200);
    const asB = await stack.http().get(`/v1/diagnostics/pings/${created.body.id}`).set(stack.b.headers);
    expect(asB.status).toBe(404);
    expect(JSON.stringify(asB.body)).not.toContain('secret of A');
    const asA = await stack.http().get(`/v1/diagnostics/pings/${created.body.id}`).set(stack.a.headers);
    expect(asA.status).toBe(200);
    expect(asA.body.note).toBe('secret of A');
  });

  it('does not require keys on the health routes', async () => {
    expect((await stack.http().get('/health')).status).toBe(200);
  });
});

describe('BOOTSTRAP_APP_ID / BOOTSTRAP_APP_TOKEN', () => {
  const appId = `bootstrap-${Date.now()}`;

  it('creates the key at start, idempotently, and follows a changed token', async () => {
    const first = await startApi(testConfig({ BOOTSTRAP_APP_ID: appId, BOOTSTRAP_APP_TOKEN: 'first-token-0123456789' }));
    const ok = await http(first).get('/v1/diagnostics/pings/ping_x').set('X-App-Id', appId).set('X-App-Token', 'first-token-0123456789');
    expect(ok.status).toBe(404);
    await first.close();

    // Same key again: still one project, still works.
    const again = await startApi(testConfig({ BOOTSTRAP_APP_ID: appId, BOOTSTRAP_APP_TOKEN: 'first-token-0123456789' }));
    const ping = await http(again).post('/v1/diagnostics/pings').set('X-App-Id', appId).set('X-App-Token', 'first-token-0123456789').send({});
    expect(ping.status).toBe(200);
    // Its project's first key, so named Primary like any first key (events carry the name).
    expect(await again.get(DataSource).query(`SELECT name FROM app_keys WHERE app_id = $1`, [appId])).toEqual([{ name: 'Primary' }]);
    await again.close();

    const rotated = await startApi(testConfig({ BOOTSTRAP_APP_ID: appId, BOOTSTRAP_APP_TOKEN: 'second-token-0123456789' }));
    const old = await http(rotated).get(`/v1/diagnostics/pings/${ping.body.id}`).set('X-App-Id', appId).set('X-App-Token', 'first-token-0123456789');
    expect(old.status).toBe(401);
    const fresh = await http(rotated).get(`/v1/diagnostics/pings/${ping.body.id}`).set('X-App-Id', appId).set('X-App-Token', 'second-token-0123456789');
    // The same project as before the rotation: its ping is visible.
    expect(fresh.status).toBe(200);
    await rotated.close();
  });
});

describe('the application key cache (APP_KEY_CACHE_MS)', () => {
  const headers = (appId: string, token: string) => ({ 'X-App-Id': appId, 'X-App-Token': token });

  it('keeps a looked-up key for the configured time, still checking the token on every request', async () => {
    const app = await startApi(testConfig({ APP_KEY_CACHE_MS: '60000' }));
    try {
      const appId = `cached-${Date.now()}`;
      await app.get(AuthService).ensureKey(appId, 'cached-token-0123456789');
      expect((await http(app).get('/v1/diagnostics/pings/ping_x').set(headers(appId, 'cached-token-0123456789'))).status).toBe(404);
      expect((await http(app).get('/v1/diagnostics/pings/ping_x').set(headers(appId, 'wrong-token-0123456789'))).status).toBe(401);
      // Rotated behind the cache's back (another process): this one keeps the key it read until the entry expires.
      await app.get(DataSource).query(`UPDATE app_keys SET token_sha256 = $2 WHERE app_id = $1`, [appId, hashToken('rotated-token-0123456789')]);
      expect((await http(app).get('/v1/diagnostics/pings/ping_x').set(headers(appId, 'cached-token-0123456789'))).status).toBe(404);
      expect((await http(app).get('/v1/diagnostics/pings/ping_x').set(headers(appId, 'rotated-token-0123456789'))).status).toBe(401);
    } finally {
      await app.close();
    }
  });

  it('sees a rotated key once the entry expires, and at once with APP_KEY_CACHE_MS=0', async () => {
    for (const ttl of ['300', '0']) {
      const app = await startApi(testConfig({ APP_KEY_CACHE_MS: ttl }));
      try {
        const appId = `expiring-${ttl}-${Date.now()}`;
        await app.get(AuthService).ensureKey(appId, 'first-token-0123456789');
        expect((await http(app).get('/v1/diagnostics/pings/ping_x').set(headers(appId, 'first-token-0123456789'))).status).toBe(404);
        await app.get(AuthService).ensureKey(appId, 'second-token-0123456789');
        if (ttl === '0') expect((await http(app).get('/v1/diagnostics/pings/ping_x').set(headers(appId, 'first-token-0123456789'))).status).toBe(401);
        await waitFor(async () => ((await http(app).get('/v1/diagnostics/pings/ping_x').set(headers(appId, 'second-token-0123456789'))).status === 404 ? true : undefined), { timeoutMs: 5_000 });
        expect((await http(app).get('/v1/diagnostics/pings/ping_x').set(headers(appId, 'first-token-0123456789'))).status).toBe(401);
      } finally {
        await app.close();
      }
    }
  });
});
