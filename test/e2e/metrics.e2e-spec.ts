import { JobQueueService } from '../../src/queue/job-queue.service.js';
import { ScrapeGauges } from '../../src/metrics/scrape-gauges.js';
import { QueueName } from '../../src/queue/queue.definitions.js';
import { useStack } from '../support/fixture.js';
import { http, startApi, testConfig, waitFor } from '../support/harness.js';
import { enrol, payOrder, pointsCampaign, unique } from '../support/points.js';
import { type Sample, parseSamples, typesOf, valueOf } from '../support/prometheus.js';

const DAY_MS = 1_000;
const ACTIVATED = 'customer.voucher.loyalty_card.pending_points.activated';
const TOKEN = 'metrics-token-0123456789abcdef';
const UNAUTHORIZED = { code: 401, key: 'unauthorized', message: 'Unauthorized' };
const READS = 'loyalty_metrics_gauge_reads_total';

/**
 * GET /metrics of the API (no worker runs in this suite, so nothing activates or delivers behind its back):
 * Prometheus's text format without an application key, the request histogram by route template, the queue
 * gauges, due pending entries and deliveries by status read at scrape time, and METRICS_TOKEN. This suite reads
 * the gauges at every scrape (METRICS_GAUGE_CACHE_MS=0), so that each scrape can be compared with the database.
 */
describe('GET /metrics on the API', () => {
  const stack = useStack({
    config: { PENDING_POINTS_DAY_MS: String(DAY_MS), WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32', METRICS_GAUGE_CACHE_MS: '0', METRICS_PUBLIC: 'true' },
    projects: ['Metrics project'],
    pointsDb: true,
  });
  const { db } = stack;

  async function scrape(): Promise<Sample[]> {
    const res = await stack.http().get('/metrics');
    expect(res.status).toBe(200);
    return parseSamples(res.text);
  }

  /** The gauge's value must lie between the database's count just before and just after the scrape. */
  async function bracketed(sql: string, name: string, labels: Record<string, string> = {}): Promise<number> {
    const before = await db.count(sql);
    const value = valueOf(await scrape(), name, labels);
    const after = await db.count(sql);
    expect(value).toBeGreaterThanOrEqual(before);
    expect(value).toBeLessThanOrEqual(after);
    return value!;
  }

  it('answers the Prometheus text format without an application key', async () => {
    const res = await stack.http().get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    const types = typesOf(res.text);
    expect(types.get('loyalty_http_request_duration_seconds')).toBe('histogram');
    expect(types.get('loyalty_queue_jobs')).toBe('gauge');
    expect(types.get('loyalty_pending_points_due')).toBe('gauge');
    expect(types.get('loyalty_webhook_deliveries')).toBe('gauge');
    expect(types.get('loyalty_pending_points_activations_total')).toBe('counter');
    expect(types.get('loyalty_paid_order_batch_size')).toBe('histogram');
    expect(types.get('loyalty_redemption_batch_size')).toBe('histogram');
    expect(types.get('process_cpu_seconds_total')).toBe('counter');
    // Worker-only families are not shown by the API.
    expect(types.has('loyalty_webhook_delivery_attempts_total')).toBe(false);
    expect(types.has('loyalty_queue_job_failures_total')).toBe(false);
    const samples = parseSamples(res.text);
    expect(valueOf(samples, 'loyalty_metrics_source_up', { source: 'redis' })).toBe(1);
    expect(valueOf(samples, 'loyalty_metrics_source_up', { source: 'postgres' })).toBe(1);
  });

  it('times requests by route template and status, never by URL', async () => {
    const campaignId = 'camp_metricsNotThere00000001';
    expect((await stack.http().get(`/v1/loyalties/${campaignId}/members`).set(stack.a.headers)).status).toBe(404);
    expect((await stack.http().get(`/v1/loyalties/${campaignId}/members`).set(stack.a.headers)).status).toBe(404);
    expect((await stack.http().get('/v1/loyalties').set(stack.a.headers)).status).toBe(200);
    expect((await stack.http().get('/v1/loyalties')).status).toBe(401);
    expect((await stack.http().get('/no/such/route/123')).status).toBe(404);
    expect((await stack.http().get('/v1/loyalties?limit=%ff').set(stack.a.headers)).status).toBe(400);

    const res = await stack.http().get('/metrics');
    const samples = parseSamples(res.text);
    const count = (labels: Record<string, string>) => valueOf(samples, 'loyalty_http_request_duration_seconds_count', labels);
    expect(count({ method: 'GET', route: '/v1/loyalties/:campaignId/members', status_code: '404' })).toBe(2);
    expect(count({ method: 'GET', route: '/v1/loyalties', status_code: '200' })).toBe(1);
    expect(count({ method: 'GET', route: '/v1/loyalties', status_code: '401' })).toBe(1);
    // An unknown path and a request refused before routing share one fixed label.
    expect(count({ method: 'GET', route: 'unmatched', status_code: '404' })).toBe(1);
    expect(count({ method: 'GET', route: 'unmatched', status_code: '400' })).toBe(1);
    const bucket = valueOf(samples, 'loyalty_http_request_duration_seconds_bucket', { route: '/v1/loyalties/:campaignId/members', status_code: '404', le: '+Inf' });
    expect(bucket).toBe(2);
    expect(res.text).not.toContain(campaignId);
    expect(res.text).not.toContain('/no/such/route');
  });

  it('shows every queue\'s waiting, delayed, active and failed jobs', async () => {
    const samples = await scrape();
    const counts = await Promise.all(Object.values(QueueName).map((queue) => stack.app.get(JobQueueService).queue(queue).getJobCounts('waiting', 'delayed', 'active', 'failed')));
    Object.values(QueueName).forEach((queue, i) => {
      for (const state of ['waiting', 'delayed', 'active', 'failed'] as const) {
        expect(valueOf(samples, 'loyalty_queue_jobs', { queue, state })).toBe(counts[i][state]);
      }
    });
  });

  it('counts a PENDING entry once it is due and not activated, and no longer once it is activated', async () => {
    const { campaign } = await pointsCampaign(stack.app, stack.a, [{ points: 25, days: 1 }]);
    const customer = unique('metrics-holder');
    const code = await enrol(stack.app, stack.a, campaign, customer);
    const order = (await payOrder(stack.app, stack.a, { source_id: unique('metrics-order'), customer })).body as { id: string };
    const [entry] = await db.entries({ orderId: order.id });
    // Its activation job waits in the delayed set (no worker here to run it).
    expect(valueOf(await scrape(), 'loyalty_queue_jobs', { queue: QueueName.PendingPoints, state: 'delayed' })).toBeGreaterThanOrEqual(1);

    const due = `SELECT 1 FROM loyalty_pending_points WHERE status = 'PENDING' AND activates_at <= now()`;
    expect(await db.count(`${due} AND id = $1`, [entry.id])).toBe(0);
    await waitFor(async () => ((await db.count(`${due} AND id = $1`, [entry.id])) === 1 ? true : undefined));
    expect(await bracketed(due, 'loyalty_pending_points_due')).toBeGreaterThanOrEqual(1);

    const manual = { operation_type: 'MANUAL', trigger: 'api' };
    expect(valueOf(await scrape(), 'loyalty_pending_points_activations_total', manual)).toBe(0);
    const activated = await stack.http().post(`/v1/loyalties/members/${code}/pending-points/${entry.id}/activate`).set(stack.a.headers);
    expect(activated.status).toBe(200);
    const [after] = await db.entries({ orderId: order.id });
    expect(after.status).toBe('ACTIVATED');
    await bracketed(due, 'loyalty_pending_points_due');
    expect(valueOf(await scrape(), 'loyalty_pending_points_activations_total', manual)).toBe(1);
  });

  it('shows deliveries by status (PENDING and FAILED)', async () => {
    const pending = `SELECT 1 FROM webhook_deliveries WHERE status = 'PENDING'`;
    const failed = `SELECT 1 FROM webhook_deliveries WHERE status = 'FAILED'`;
    const before = { pending: await bracketed(pending, 'loyalty_webhook_deliveries', { status: 'PENDING' }), failed: await bracketed(failed, 'loyalty_webhook_deliveries', { status: 'FAILED' }) };
    const distribution = await stack.http().post('/v1/distributions').set(stack.a.headers).send({ name: unique('Metrics distribution'), trigger: ACTIVATED, target_url: 'http://127.0.0.1:9/never' });
    expect(distribution.status).toBe(200);
    const test = await stack.http().post(`/v1/distributions/${distribution.body.id}/test`).set(stack.a.headers);
    expect(test.status).toBe(200);
    expect(await bracketed(pending, 'loyalty_webhook_deliveries', { status: 'PENDING' })).toBe(before.pending + 1);
    // The delivery as its retries running out would leave it.
    await db.query(`UPDATE webhook_deliveries SET status = 'FAILED', next_attempt_at = NULL WHERE id = $1`, [test.body.id]);
    expect(await bracketed(pending, 'loyalty_webhook_deliveries', { status: 'PENDING' })).toBe(before.pending);
    expect(await bracketed(failed, 'loyalty_webhook_deliveries', { status: 'FAILED' })).toBe(before.failed + 1);
    // SUCCEEDED is not counted at scrape time (docs/operations.md).
    expect(valueOf(await scrape(), 'loyalty_webhook_deliveries', { status: 'SUCCEEDED' })).toBeUndefined();
  });

  it('reads at every scrape with METRICS_GAUGE_CACHE_MS=0, but refreshes that overlap share one read', async () => {
    const first = valueOf(await scrape(), READS)!;
    expect(valueOf(await scrape(), READS)).toBe(first + 1);
    // Twenty refreshes started together (as twenty scrapes arriving at once would): one read.
    await Promise.all(Array.from({ length: 20 }, () => stack.app.get(ScrapeGauges).refresh()));
    expect(valueOf(await scrape(), READS)).toBe(first + 3);
  });
});

describe('GET /metrics caches its gauges for METRICS_GAUGE_CACHE_MS', () => {
  const WINDOW_MS = 8_000;
  const stack = useStack({ config: { METRICS_GAUGE_CACHE_MS: String(WINDOW_MS), WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32', METRICS_PUBLIC: 'true' }, projects: ['Metrics cache project'], pointsDb: true });
  const { db } = stack;

  const samplesOf = (res: { status: number; text: string }) => {
    expect(res.status).toBe(200);
    return parseSamples(res.text);
  };

  it('20 concurrent scrapes make one read; a scrape within the window shows it again; the first after it reads anew', async () => {
    // No worker runs here, so nothing but this test changes the number of PENDING deliveries.
    const pendingSql = `SELECT 1 FROM webhook_deliveries WHERE status = 'PENDING'`;
    const pending = { status: 'PENDING' };
    const before = await db.count(pendingSql);
    const started = Date.now();
    const scrapes = (await Promise.all(Array.from({ length: 20 }, () => stack.http().get('/metrics')))).map(samplesOf);
    expect(scrapes.map((samples) => valueOf(samples, READS))).toEqual(Array(20).fill(1));
    expect(scrapes.map((samples) => valueOf(samples, 'loyalty_webhook_deliveries', pending))).toEqual(Array(20).fill(before));

    // One more PENDING delivery in the database; the next scrape, within the window, still shows the read above.
    const distribution = await stack.http().post('/v1/distributions').set(stack.a.headers).send({ name: unique('Metrics cache'), trigger: ACTIVATED, target_url: 'http://127.0.0.1:9/never' });
    expect(distribution.status).toBe(200);
    expect((await stack.http().post(`/v1/distributions/${distribution.body.id}/test`).set(stack.a.headers)).status).toBe(200);
    expect(await db.count(pendingSql)).toBe(before + 1);
    const cached = samplesOf(await stack.http().get('/metrics'));
    // Otherwise this machine was too slow for the check to mean anything.
    expect(Date.now() - started).toBeLessThan(WINDOW_MS);
    expect(valueOf(cached, READS)).toBe(1);
    expect(valueOf(cached, 'loyalty_webhook_deliveries', pending)).toBe(before);

    // Once the window has passed, the next scrape reads again and shows the new delivery.
    const fresh = await waitFor(async () => {
      const samples = samplesOf(await stack.http().get('/metrics'));
      return valueOf(samples, READS) === 1 ? undefined : samples;
    }, { timeoutMs: WINDOW_MS + 20_000, intervalMs: 500 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(WINDOW_MS);
    expect(valueOf(fresh, READS)).toBe(2);
    expect(valueOf(fresh, 'loyalty_webhook_deliveries', pending)).toBe(before + 1);
  });
});

describe('GET /metrics is closed unless METRICS_TOKEN or METRICS_PUBLIC=true says otherwise, whatever NODE_ENV (issue 36)', () => {
  for (const NODE_ENV of ['', 'development', 'production']) {
    it(`without either, NODE_ENV=${NODE_ENV || '(unset)'}: not served, an unknown route (404 in the API's error shape) like any other`, async () => {
      const app = await startApi(testConfig({ NODE_ENV, METRICS_TOKEN: '', METRICS_PUBLIC: '' }));
      try {
        for (const authorization of [undefined, 'Bearer anything-0123456789abcdef']) {
          const req = http(app).get('/metrics');
          const res = authorization === undefined ? await req : await req.set('Authorization', authorization);
          expect({ authorization, status: res.status, body: res.body }).toEqual({
            authorization,
            status: 404,
            body: { code: 404, key: 'not_found', message: 'Resource not found', details: 'Cannot find route GET /metrics', request_id: res.headers['x-request-id'] },
          });
          expect(res.text).not.toContain('loyalty_');
        }
        // Nothing is there to read the gauges.
        expect(() => app.get(ScrapeGauges)).toThrow();
        expect((await http(app).get('/health')).status).toBe(200);
      } finally {
        await app.close();
      }
    });
  }

  it('with METRICS_PUBLIC=true and no token: served to anyone', async () => {
    const app = await startApi(testConfig({ NODE_ENV: 'production', METRICS_TOKEN: '', METRICS_PUBLIC: 'true' }));
    try {
      const res = await http(app).get('/metrics');
      expect(res.status).toBe(200);
      expect(res.text).toContain('# TYPE loyalty_webhook_deliveries gauge');
    } finally {
      await app.close();
    }
  });

  it('with METRICS_TOKEN: served, to that bearer token only, METRICS_PUBLIC=true or not', async () => {
    const app = await startApi(testConfig({ NODE_ENV: 'production', METRICS_TOKEN: TOKEN, METRICS_PUBLIC: 'true' }));
    try {
      const refused = await http(app).get('/metrics');
      expect({ status: refused.status, body: refused.body }).toEqual({ status: 401, body: UNAUTHORIZED });
      const ok = await http(app).get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
      expect(ok.status).toBe(200);
      expect(ok.text).toContain('# TYPE loyalty_webhook_deliveries gauge');
    } finally {
      await app.close();
    }
  });
});

describe('wrong METRICS_TOKENs count as failed authentications of the address (AUTH_FAILURE_LIMIT, issue 36)', () => {
  it('past the limit a wrong token gets 429 with Retry-After, the right one is still served; key failures count in the same bucket', async () => {
    const app = await startApi(testConfig({ METRICS_TOKEN: TOKEN, AUTH_FAILURE_LIMIT: '3', TRUST_PROXY: 'loopback' }));
    try {
      const client = '198.51.100.7, 192.0.2.36';
      const wrong = () => http(app).get('/metrics').set('Authorization', `Bearer ${TOKEN}x`).set('X-Forwarded-For', client);
      expect((await wrong()).status).toBe(401);
      expect((await http(app).get('/v1/loyalties').set({ 'X-App-Id': 'metrics-guess', 'X-App-Token': 'metrics-guess-0123456789' }).set('X-Forwarded-For', client)).status).toBe(401);
      expect((await wrong()).status).toBe(401);
      const limited = await wrong();
      expect(limited.status).toBe(429);
      expect(limited.body).toMatchObject({ code: 429, key: 'too_many_requests', details: expect.stringMatching(/^Too many failed authentications from this address \(3 a minute\); retry in \d+ s$/) });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect((await wrong()).status).toBe(429);
      expect((await http(app).get('/metrics').set('Authorization', `Bearer ${TOKEN}`).set('X-Forwarded-For', client)).status).toBe(200);
      // Another address: its own count.
      expect((await http(app).get('/metrics').set('Authorization', `Bearer ${TOKEN}x`).set('X-Forwarded-For', '198.51.100.7, 192.0.2.37')).status).toBe(401);
    } finally {
      await app.close();
    }
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  const stack = useStack({ config: { METRICS_TOKEN: TOKEN } });

  it('answers 401 without the bearer token or with a wrong one, 200 with it', async () => {
    for (const authorization of [undefined, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, 'Bearer', `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}`, TOKEN]) {
      const req = stack.http().get('/metrics');
      const res = authorization === undefined ? await req : await req.set('Authorization', authorization);
      expect({ authorization, status: res.status, body: res.body }).toEqual({ authorization, status: 401, body: UNAUTHORIZED });
      expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    }
    const ok = await stack.http().get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('# TYPE loyalty_http_request_duration_seconds histogram');
    // The scheme is case-insensitive (RFC 7235).
    expect((await stack.http().get('/metrics').set('Authorization', `bearer ${TOKEN}`)).status).toBe(200);
    // Nothing else takes it (nor needs it).
    expect((await stack.http().get('/health')).status).toBe(200);
    expect((await stack.http().get('/v1/loyalties').set('Authorization', `Bearer ${TOKEN}`)).status).toBe(401);
  });
});
