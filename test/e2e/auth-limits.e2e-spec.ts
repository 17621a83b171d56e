import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AuthService } from '../../src/auth/auth.service.js';
import { ProjectRepository } from '../../src/auth/project.repository.js';
import { type TestProject, createProject, http, startApi, testConfig } from '../support/harness.js';

const UNAUTHORIZED = { code: 401, key: 'unauthorized', message: 'Unauthorized' };
const PING = '/v1/diagnostics/pings/ping_x';
const bogus = (appId: string) => ({ 'X-App-Id': appId, 'X-App-Token': 'not-the-token-0123456789' });
/**
 * X-Forwarded-For naming a new client each time: documentation addresses (RFC 5737) no other test uses, so
 * each case has its own failure bucket. With TRUST_PROXY=loopback the last address is the client's.
 */
let clients = 0;
const address = () => `198.51.100.1, 203.0.113.${++clients}`;

describe('unauthenticated requests are cheap', () => {
  const apps: NestExpressApplication[] = [];
  const start = async (overrides: Record<string, string> = {}) => {
    const app = await startApi(testConfig(overrides));
    apps.push(app);
    return app;
  };
  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  describe('the cache of unknown app ids (AUTH_NEGATIVE_CACHE_MS)', () => {
    it('50 requests with one unknown app id cost at most two key lookups', async () => {
      const app = await start({ AUTH_NEGATIVE_CACHE_MS: '60000' });
      const repository = app.get(ProjectRepository);
      const appId = `unknown-${randomUUID()}`;
      const before = repository.keyLookups;
      for (let i = 0; i < 50; i++) {
        const res = await http(app).get(PING).set(bogus(appId));
        expect(res.status).toBe(401);
        expect(res.body).toEqual(UNAUTHORIZED);
      }
      expect(repository.keyLookups - before).toBeLessThanOrEqual(2);
    });

    it('a wrong token for a known id is not remembered: the right token works on the next request', async () => {
      const app = await start({ AUTH_NEGATIVE_CACHE_MS: '60000' });
      const project = await createProject(app);
      for (let i = 0; i < 5; i++) expect((await http(app).get(PING).set(bogus(project.app_id))).status).toBe(401);
      expect((await http(app).get(PING).set(project.headers)).status).toBe(404);
    });

    it('a key made in this process for an id it found unknown works at once (BOOTSTRAP_APP_ID)', async () => {
      const app = await start({ AUTH_NEGATIVE_CACHE_MS: '60000' });
      const appId = `late-${Date.now()}`;
      expect((await http(app).get(PING).set({ 'X-App-Id': appId, 'X-App-Token': 'late-token-0123456789' })).status).toBe(401);
      await app.get(AuthService).ensureKey(appId, 'late-token-0123456789');
      expect((await http(app).get(PING).set({ 'X-App-Id': appId, 'X-App-Token': 'late-token-0123456789' })).status).toBe(404);
    });

    it('with AUTH_NEGATIVE_CACHE_MS=0 every request with an unknown id is looked up', async () => {
      const app = await start({ AUTH_NEGATIVE_CACHE_MS: '0' });
      const repository = app.get(ProjectRepository);
      const before = repository.keyLookups;
      for (let i = 0; i < 5; i++) await http(app).get(PING).set(bogus('unknown-uncached'));
      expect(repository.keyLookups - before).toBe(5);
    });
  });

  describe('the limit on failed authentications per client address (AUTH_FAILURE_LIMIT)', () => {
    it('the failure past the limit and every guess after it get 429 with Retry-After, at a bounded number of key lookups; a valid key is still served; other addresses are unaffected', async () => {
      const app = await start({ AUTH_FAILURE_LIMIT: '5', TRUST_PROXY: 'loopback' });
      const project = await createProject(app);
      const repository = app.get(ProjectRepository);
      const client = address();
      // Successful requests do not count.
      for (let i = 0; i < 8; i++) expect((await http(app).get(PING).set(project.headers).set('X-Forwarded-For', client)).status).toBe(404);
      for (let i = 0; i < 5; i++) {
        const res = await http(app).get(PING).set(bogus(`guess-${i}`)).set('X-Forwarded-For', client);
        expect(res.status).toBe(401);
        expect(res.body).toEqual(UNAUTHORIZED);
      }
      const limited = await http(app).get(PING).set(bogus('guess-5')).set('X-Forwarded-For', client);
      expect(limited.status).toBe(429);
      expect(limited.body).toMatchObject({ code: 429, key: 'too_many_requests', message: 'Too many requests' });
      expect(limited.body.details).toMatch(/^Too many failed authentications from this address \(5 a minute\); retry in \d+ s$/);
      expect(limited.body.request_id).toMatch(/^v-[0-9a-f]+$/);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);

      // Limited: guesses are answered 429; made-up ids cost at most the process's lookup budget for limited
      // addresses (AUTH_FAILURE_LIMIT a minute), then nothing; a wrong token for a known id costs nothing; the
      // valid key, answered from the key cache, is served as if nothing happened (issue 36).
      let lookups = repository.keyLookups;
      for (let i = 0; i < 10; i++) expect((await http(app).get(PING).set(bogus(`flood-${i}`)).set('X-Forwarded-For', client)).status).toBe(429);
      expect(repository.keyLookups - lookups).toBeLessThanOrEqual(5);
      lookups = repository.keyLookups;
      for (let i = 10; i < 20; i++) expect((await http(app).get(PING).set(bogus(`flood-${i}`)).set('X-Forwarded-For', client)).status).toBe(429);
      expect((await http(app).get(PING).set(bogus(project.app_id)).set('X-Forwarded-For', client)).status).toBe(429);
      expect((await http(app).get(PING).set({ 'X-App-Id': project.app_id }).set('X-Forwarded-For', client)).status).toBe(429);
      for (let i = 0; i < 5; i++) expect((await http(app).get(PING).set(project.headers).set('X-Forwarded-For', client)).status).toBe(404);
      expect(repository.keyLookups).toBe(lookups);

      // Another address: its own count.
      const other = address();
      expect((await http(app).get(PING).set(bogus('other')).set('X-Forwarded-For', other)).status).toBe(401);
      expect((await http(app).get(PING).set(project.headers).set('X-Forwarded-For', other)).status).toBe(404);
      // Public routes are not behind the key check.
      expect((await http(app).get('/health').set('X-Forwarded-For', client)).status).toBe(200);
    });

    it('a guesser behind the same address (a proxy without TRUST_PROXY) does not get a valid client refused', async () => {
      // A prefix of its own: this test's socket address (127.0.0.1) starts with a full bucket.
      const app = await start({ AUTH_FAILURE_LIMIT: '5', QUEUE_PREFIX: `${testConfig().queuePrefix}_proxy` });
      const project = await createProject(app);
      const tenant: number[] = [];
      const guesser: number[] = [];
      for (let round = 0; round < 20; round++) {
        const [guess, valid] = await Promise.all([http(app).get(PING).set(bogus(`proxy-guess-${round}`)), http(app).get(PING).set(project.headers)]);
        guesser.push(guess.status);
        tenant.push(valid.status);
      }
      expect(guesser.filter((status) => status === 429).length).toBeGreaterThanOrEqual(14);
      expect(tenant).toEqual(Array(20).fill(404));
    });

    it("a key this process has not looked up yet, from a limited address: looked up within a budget of AUTH_FAILURE_LIMIT a minute per process; a key it has seen costs no budget", async () => {
      const config = { AUTH_FAILURE_LIMIT: '4', TRUST_PROXY: 'loopback', APP_KEY_CACHE_MS: '0', AUTH_NEGATIVE_CACHE_MS: '0' };
      const [first, second] = [await start(config), await start(config)];
      const [seen, unseen] = [await createProject(first, 'seen'), await createProject(first, 'unseen')];
      const repository = second.get(ProjectRepository);
      const client = address();
      for (let i = 0; i < 4; i++) expect((await http(first).get(PING).set(bogus(`budget-${i}`)).set('X-Forwarded-For', client)).status).toBe(401);
      // The second process learns that the address is limited from its own next failure.
      expect((await http(second).get(PING).set(bogus('budget-4')).set('X-Forwarded-For', client)).status).toBe(429);
      // A valid key the second process never looked up: one lookup, served.
      let lookups = repository.keyLookups;
      expect((await http(second).get(PING).set(seen.headers).set('X-Forwarded-For', client)).status).toBe(404);
      expect(repository.keyLookups - lookups).toBe(1);
      // Guesses spend what is left of the budget (4 a minute, in bursts of 4), then cost nothing.
      lookups = repository.keyLookups;
      for (let i = 0; i < 20; i++) expect((await http(second).get(PING).set(bogus(`budget-flood-${i}`)).set('X-Forwarded-For', client)).status).toBe(429);
      expect(repository.keyLookups - lookups).toBeLessThanOrEqual(3);
      // Budget spent: a key this process has never seen waits (429, the documented cost) ...
      lookups = repository.keyLookups;
      expect((await http(second).get(PING).set(unseen.headers).set('X-Forwarded-For', client)).status).toBe(429);
      expect(repository.keyLookups).toBe(lookups);
      // ... a key it has seen with this token is looked up again (APP_KEY_CACHE_MS=0: as for any address) and served.
      for (let i = 0; i < 3; i++) expect((await http(second).get(PING).set(seen.headers).set('X-Forwarded-For', client)).status).toBe(404);
      expect(repository.keyLookups - lookups).toBe(3);
      // A wrong token for that seen id is no lookup.
      expect((await http(second).get(PING).set(bogus(seen.app_id)).set('X-Forwarded-For', client)).status).toBe(429);
      expect(repository.keyLookups - lookups).toBe(3);
      // Another address is not limited: the unseen key is served there.
      expect((await http(second).get(PING).set(unseen.headers).set('X-Forwarded-For', address())).status).toBe(404);
    });

    it('is shared by API processes (Redis): failures in two processes add up', async () => {
      const config = { AUTH_FAILURE_LIMIT: '4', TRUST_PROXY: 'loopback' };
      const [first, second] = [await start(config), await start(config)];
      const client = address();
      for (const app of [first, second, first, second]) expect((await http(app).get(PING).set(bogus('shared')).set('X-Forwarded-For', client)).status).toBe(401);
      expect((await http(second).get(PING).set(bogus('shared')).set('X-Forwarded-For', client)).status).toBe(429);
      expect((await http(first).get(PING).set(bogus('shared')).set('X-Forwarded-For', client)).status).toBe(429);
    });

    it('without TRUST_PROXY, X-Forwarded-For is ignored: the socket address is counted', async () => {
      const app = await start({ AUTH_FAILURE_LIMIT: '3' });
      const answers: number[] = [];
      for (let i = 0; i < 5; i++) answers.push((await http(app).get(PING).set(bogus('spoof')).set('X-Forwarded-For', address())).status);
      expect(answers).toEqual([401, 401, 401, 429, 429]);
    });
  });

  describe('the key is checked before the body is read', () => {
    let app: NestExpressApplication;
    let project: TestProject;
    beforeAll(async () => {
      app = await start();
      project = await createProject(app);
    });

    it('malformed JSON with a wrong key: 401, not a parse error', async () => {
      const res = await http(app).post('/v1/diagnostics/pings').set(bogus(project.app_id)).set('Content-Type', 'application/json').send('{"note":');
      expect(res.status).toBe(401);
      expect(res.body).toEqual(UNAUTHORIZED);
      // With the right key the same body is parsed, and refused as before.
      const parsed = await http(app).post('/v1/diagnostics/pings').set(project.headers).set('Content-Type', 'application/json').send('{"note":');
      expect(parsed.status).toBe(400);
      expect(parsed.body.details).toBe('Request body is not valid JSON');
    });

    it('a body over the limit without keys: 401, not 413; a v2 route too', async () => {
      const body = `{"note":"${'x'.repeat(1024 * 1024 + 10)}"}`;
      const res = await http(app).post('/v1/diagnostics/pings').set('Content-Type', 'application/json').send(body);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(UNAUTHORIZED);
      const v2 = await http(app).post('/v2/loyalties/programs/lprg_x/members').set('Content-Type', 'application/json').send('{"broken');
      expect(v2.status).toBe(401);
    });
  });

  describe('the body is read after the key and the rate limit are checked', () => {
    it('an unknown route answers 404 without reading the body; a project over its rate limit gets 429, not a parse error', async () => {
      const app = await start({ RATE_LIMIT_PER_SECOND: '1' });
      const project = await createProject(app);
      const missing = await http(app).post('/v1/no-such-route').set(project.headers).set('Content-Type', 'application/json').send('{"broken');
      expect(missing.status).toBe(404);
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => http(app).post('/v1/diagnostics/pings').set(project.headers).set('Content-Type', 'application/json').send('{"broken')),
      );
      // A bucket of 2 (at 1 a second): parse errors for the requests it lets through, 429 for the others.
      const statuses = answers.map((answer) => answer.status);
      expect(statuses).toContain(400);
      expect(statuses).toContain(429);
      expect(statuses.every((status) => status === 400 || status === 429)).toBe(true);
    });
  });

  describe('HTTP server timeouts', () => {
    it('a client sending its headers slowly (slowloris) is cut off after HTTP_HEADERS_TIMEOUT_MS with a 408', async () => {
      const app = await start({ HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_REQUEST_TIMEOUT_MS: '2000' });
      await app.listen(0, '127.0.0.1');
      const { port } = app.getHttpServer().address() as AddressInfo;
      const started = Date.now();
      const answer = await new Promise<{ text: string; ms: number }>((resolve) => {
        const socket = connect(port, '127.0.0.1');
        let text = '';
        let line = 0;
        // One header line every 200 ms, for up to 20 s: Node's default (60 s) would wait for all of them.
        const drip = setInterval(() => socket.write(line++ === 0 ? 'GET /health HTTP/1.1\r\nHost: x\r\n' : `X-Slow-${line}: y\r\n`), 200);
        const stop = setTimeout(() => socket.destroy(), 20_000);
        socket.on('data', (chunk) => (text += chunk.toString('latin1')));
        socket.on('error', () => undefined);
        socket.on('close', () => {
          clearInterval(drip);
          clearTimeout(stop);
          resolve({ text, ms: Date.now() - started });
        });
      });
      expect(answer.text).toMatch(/^HTTP\/1\.1 408 /);
      expect(answer.text).toContain('"key":"request_timeout"');
      // The timeout, plus Node's check interval (a quarter of it), plus a slow machine's margin.
      expect(answer.ms).toBeLessThan(5_000);
    });

    it('refuses a headers timeout longer than the request timeout', () => {
      expect(() => testConfig({ HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '2000' })).toThrow(/HTTP_REQUEST_TIMEOUT_MS must be at least HTTP_HEADERS_TIMEOUT_MS/);
    });
  });
});
