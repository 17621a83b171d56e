import { QUEUE_BOARD_CSP } from '../../src/admin/queue-board.js';
import { DASHBOARD_CSP } from '../../src/dashboard/security-headers.js';
import { QueueName } from '../../src/queue/queue.definitions.js';
import { useStack } from '../support/fixture.js';
import { parseSamples, valueOf } from '../support/prometheus.js';

const ADMIN_TOKEN = 'admin-token-0123456789:with/colon';
const UNAUTHORIZED = { code: 401, key: 'unauthorized', message: 'Unauthorized' };
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** bull-board at /admin/queues: absent without ADMIN_TOKEN; with it, behind HTTP basic auth. Browser-free. */
describe('bull-board at /admin/queues', () => {
  describe('without ADMIN_TOKEN', () => {
    const stack = useStack({ config: { ADMIN_TOKEN: '' } });

    it('is an unknown route (404), whatever the credentials', async () => {
      for (const path of ['/admin/queues', '/admin/queues/api/queues', '/admin/queues/static/css/main.css']) {
        const res = await stack.http().get(path).set('Authorization', basic('admin', ADMIN_TOKEN));
        expect({ path, status: res.status, key: res.body.key }).toEqual({ path, status: 404, key: 'not_found' });
        expect(res.headers['www-authenticate']).toBeUndefined();
      }
    });
  });

  describe('with ADMIN_TOKEN', () => {
    const stack = useStack({ config: { ADMIN_TOKEN, METRICS_PUBLIC: 'true' } });
    const auth = basic('any-user', ADMIN_TOKEN);

    it('checks the password before reading a body: a malformed or oversized body without it is a 401 (issue 36)', async () => {
      const path = `/admin/queues/api/queues/${QueueName.Diagnostics}/pause`;
      const bodies = ['{"broken', `{"x":"${'x'.repeat(1024 * 1024 + 10)}"}`];
      for (const body of bodies) {
        for (const authorization of [undefined, basic('admin', `${ADMIN_TOKEN}x`)]) {
          const req = stack.http().put(path).set('Content-Type', 'application/json');
          const res = await (authorization === undefined ? req : req.set('Authorization', authorization)).send(body);
          expect({ size: body.length, authorization, status: res.status, body: res.body }).toEqual({ size: body.length, authorization, status: 401, body: UNAUTHORIZED });
        }
      }
      // With the password the body is read, and refused as the API refuses it.
      const parsed = await stack.http().put(path).set('Authorization', auth).set('Content-Type', 'application/json').send('{"broken');
      expect({ status: parsed.status, details: parsed.body.details }).toEqual({ status: 400, details: 'Request body is not valid JSON' });
      const large = await stack.http().put(path).set('Authorization', auth).set('Content-Type', 'application/json').send(bodies[1]);
      expect(large.status).toBe(413);
    });

    it('answers 401 with a Basic challenge without the password or with a wrong one', async () => {
      const attempts = [undefined, basic('admin', `${ADMIN_TOKEN}x`), basic('admin', ''), basic(ADMIN_TOKEN, 'x'), `Bearer ${ADMIN_TOKEN}`, 'Basic !!!'];
      for (const path of ['/admin/queues', '/admin/queues/api/queues', '/admin/queues/static/images/logo.svg']) {
        for (const authorization of attempts) {
          const req = stack.http().get(path);
          const res = authorization === undefined ? await req : await req.set('Authorization', authorization);
          expect({ path, authorization, status: res.status, body: res.body }).toEqual({ path, authorization, status: 401, body: UNAUTHORIZED });
          expect(res.headers['www-authenticate']).toBe('Basic realm="queues", charset="UTF-8"');
        }
      }
    });

    it('serves the page with any user name and the password, its files from this process, under its own CSP', async () => {
      const page = await stack.http().get('/admin/queues').set('Authorization', auth);
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.text).toContain('<base href="/admin/queues/" />');
      // The dashboard's policy would refuse the page's <base> and its styles; the board has its own.
      expect(page.headers['content-security-policy']).toBe(QUEUE_BOARD_CSP);
      expect(page.headers['content-security-policy']).not.toBe(DASHBOARD_CSP);
      expect(page.headers['x-frame-options']).toBe('DENY');
      expect(page.headers['x-powered-by']).toBeUndefined();
      // No file from elsewhere (bull-board's template links Google Fonts), and every file it names is served here.
      const urls = [...page.text.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
      expect(urls.filter((url) => /^(https?:)?\/\//.test(url))).toEqual([]);
      const files = urls.filter((url) => url.startsWith('static/'));
      expect(files.length).toBeGreaterThanOrEqual(4);
      for (const file of files) {
        const res = await stack.http().get(`/admin/queues/${file}`).set('Authorization', auth);
        expect({ file, status: res.status }).toEqual({ file, status: 200 });
      }
      // A deep link of the page's router is the same page.
      const deep = await stack.http().get(`/admin/queues/queue/${QueueName.Webhooks}`).set('Authorization', basic('someone-else', ADMIN_TOKEN));
      expect(deep.status).toBe(200);
      expect(deep.text).toContain('<div id="root">');
    });

    it('answers its JSON API through the API\'s edge checks: the queues, with the query the page sends, and a PUT', async () => {
      const list = await stack.http().get('/admin/queues/api/queues').set('Authorization', auth);
      expect(list.status).toBe(200);
      expect((list.body.queues as { name: string }[]).map((q) => q.name).sort()).toEqual(Object.values(QueueName).sort());
      const page = await stack.http().get('/admin/queues/api/queues').query({ activeQueue: QueueName.Webhooks, status: 'latest', page: 1, jobsPerPage: 10 }).set('Authorization', auth);
      expect(page.status).toBe(200);
      expect(page.body.queues).toHaveLength(Object.values(QueueName).length);
      // Pausing and resuming: a JSON body passes the API's body parser before bull-board's.
      for (const action of ['pause', 'resume']) {
        const res = await stack.http().put(`/admin/queues/api/queues/${QueueName.Diagnostics}/${action}`).set('Authorization', auth).send({});
        expect({ action, status: res.status }).toEqual({ action, status: 200 });
      }
      const after = await stack.http().get('/admin/queues/api/queues').set('Authorization', auth);
      expect((after.body.queues as { name: string; isPaused: boolean }[]).find((q) => q.name === QueueName.Diagnostics)?.isPaused).toBe(false);
      // An unknown path under the board is the API's 404.
      const unknown = await stack.http().get('/admin/queues/api/nothing-here').set('Authorization', auth);
      expect(unknown.status).toBe(404);
      expect(unknown.body.key).toBe('not_found');
    });

    it('is timed in /metrics by route template', async () => {
      await stack.http().get(`/admin/queues/api/queues/${QueueName.Webhooks}/no-such-job`).set('Authorization', auth);
      const samples = parseSamples((await stack.http().get('/metrics')).text);
      expect(valueOf(samples, 'loyalty_http_request_duration_seconds_count', { method: 'GET', route: '/admin/queues/api/queues', status_code: '200' })).toBeGreaterThanOrEqual(2);
      expect(valueOf(samples, 'loyalty_http_request_duration_seconds_count', { method: 'GET', route: '/admin/queues/api/queues/:queueName/:jobId' })).toBe(1);
      expect(samples.some((s) => s.labels.route?.includes('no-such-job'))).toBe(false);
    });
  });

  describe('with ADMIN_TOKEN and AUTH_FAILURE_LIMIT (issue 36)', () => {
    const stack = useStack({ config: { ADMIN_TOKEN, AUTH_FAILURE_LIMIT: '3', TRUST_PROXY: 'loopback' } });

    it('wrong passwords count as failed authentications of the address: past the limit 429 with Retry-After; the right password is still served', async () => {
      const client = '198.51.100.7, 192.0.2.41';
      const wrong = () => stack.http().get('/admin/queues/api/queues').set('Authorization', basic('admin', 'not-the-password')).set('X-Forwarded-For', client);
      for (let i = 0; i < 3; i++) expect((await wrong()).status).toBe(401);
      const limited = await wrong();
      expect(limited.status).toBe(429);
      expect(limited.body).toMatchObject({ code: 429, key: 'too_many_requests', details: expect.stringMatching(/^Too many failed authentications from this address \(3 a minute\); retry in \d+ s$/) });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(limited.headers['www-authenticate']).toBeUndefined();
      // Limited: a body is not read either.
      const body = await stack.http().put(`/admin/queues/api/queues/${QueueName.Diagnostics}/pause`).set('X-Forwarded-For', client).set('Content-Type', 'application/json').send('{"broken');
      expect(body.status).toBe(429);
      const served = await stack.http().get('/admin/queues/api/queues').set('Authorization', basic('admin', ADMIN_TOKEN)).set('X-Forwarded-For', client);
      expect(served.status).toBe(200);
    });
  });
});
