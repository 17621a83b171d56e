import { type ChildProcess, spawn } from 'node:child_process';
import { JobQueueService } from '../../src/queue/job-queue.service.js';
import { deleteKeysWithPrefix } from '../../src/queue/redis-keys.js';
import { QueueName } from '../../src/queue/queue.definitions.js';
import { useStack } from '../support/fixture.js';
import { freePort, startWorkerProcess, testConfig, waitFor } from '../support/harness.js';
import { enrol, payOrder, pointsCampaign, unique } from '../support/points.js';
import { type Sample, parseSamples, typesOf, valueOf } from '../support/prometheus.js';

const DAY_MS = 1_000;
const ACTIVATED = 'customer.voucher.loyalty_card.pending_points.activated';
const TOKEN = 'worker-metrics-token-0123456789';

/**
 * GET /metrics of a real worker process (`node dist/worker.js`) started with WORKER_METRICS_PORT: the bearer
 * token, then its counters moving as it activates a pending entry by its job, delivers the activation's
 * webhook and fails a job.
 */
describe('GET /metrics on the worker (WORKER_METRICS_PORT)', () => {
  const workers = new Set<ChildProcess>();
  const stack = useStack({
    config: { PENDING_POINTS_DAY_MS: String(DAY_MS), WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32' },
    receiver: true,
    projects: ['Worker metrics project'],
    pointsDb: true,
    beforeClose: () => {
      for (const worker of workers) worker.kill('SIGKILL');
    },
  });
  const { receiver, db } = stack;
  let base: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    // Failed authentications from 127.0.0.1 counted by the suites before this one are not this worker's.
    await deleteKeysWithPrefix(stack.config.redisUrl, `${stack.config.queuePrefix}:auth-failures:`);
    await startWorkerProcess({ WORKER_METRICS_PORT: String(port), METRICS_TOKEN: TOKEN, AUTH_FAILURE_LIMIT: '3', PENDING_POINTS_DAY_MS: String(DAY_MS), WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32', LOG_LEVEL: 'info' }, workers);
  });

  const get = (path: string, authorization?: string) => fetch(`${base}${path}`, { headers: authorization ? { authorization } : {} });

  async function scrape(): Promise<Sample[]> {
    const res = await get('/metrics', `Bearer ${TOKEN}`);
    expect(res.status).toBe(200);
    return parseSamples(await res.text());
  }

  it('requires METRICS_TOKEN as a bearer token, and answers the Prometheus text format with it', async () => {
    for (const authorization of [undefined, `Bearer ${TOKEN}-wrong`, `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}`]) {
      const res = await get('/metrics', authorization);
      expect({ authorization, status: res.status }).toEqual({ authorization, status: 401 });
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
      expect(await res.json()).toEqual({ code: 401, key: 'unauthorized', message: 'Unauthorized' });
    }
    const res = await get('/metrics', `Bearer ${TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    const types = typesOf(text);
    expect(types.get('loyalty_pending_points_activations_total')).toBe('counter');
    expect(types.get('loyalty_webhook_delivery_attempts_total')).toBe('counter');
    expect(types.get('loyalty_webhook_delivery_attempt_duration_seconds')).toBe('histogram');
    expect(types.get('loyalty_queue_job_failures_total')).toBe('counter');
    expect(types.get('process_resident_memory_bytes')).toBe('gauge');
    // The API's families are not the worker's.
    expect(types.has('loyalty_http_request_duration_seconds')).toBe(false);
    // Every series the worker can produce exists from the start (at 0, unless the worker already had work
    // left by the suites before this one).
    const samples = parseSamples(text);
    for (const queue of Object.values(QueueName)) expect(valueOf(samples, 'loyalty_queue_job_failures_total', { queue })).toEqual(expect.any(Number));
    for (const outcome of ['success', 'http_error', 'no_response']) expect(valueOf(samples, 'loyalty_webhook_delivery_attempts_total', { outcome })).toEqual(expect.any(Number));
    for (const trigger of ['job', 'sweep']) expect(valueOf(samples, 'loyalty_pending_points_activations_total', { operation_type: 'AUTOMATIC', trigger })).toEqual(expect.any(Number));
  });

  it('counts wrong tokens as failed authentications of the peer: past AUTH_FAILURE_LIMIT (3, all spent above) 429 with Retry-After; the right token is still served (issue 36)', async () => {
    const limited = await get('/metrics', `Bearer ${TOKEN}-wrong`);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await limited.json()).toMatchObject({ code: 429, key: 'too_many_requests', details: expect.stringMatching(/^Too many failed authentications from this address \(3 a minute\); retry in \d+ s$/) });
    expect((await get('/metrics', `Bearer ${TOKEN}`)).status).toBe(200);
  });

  it('answers GET /health without a token (the worker\'s liveness probe, issue 39)', async () => {
    await waitFor(async () => {
      const res = await get('/health');
      return res.status === 200 && ((await res.json()) as { redis?: string }).redis === 'up' ? true : undefined;
    });
    const res = await get('/health');
    expect(await res.json()).toEqual({ status: 'ok', redis: 'up' });
  });

  it('answers 404 in the API\'s error shape anywhere else', async () => {
    const res = await get('/v1/loyalties', `Bearer ${TOKEN}`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ code: 404, key: 'not_found', message: 'Resource not found', details: 'Cannot find route GET /v1/loyalties' });
  });

  // The run's database and queues are shared with the suites before this one, so whatever they left due is
  // this worker's too: the checks are on what changed, not on absolute values.
  const value = (samples: Sample[], name: string, labels: Record<string, string>) => valueOf(samples, name, labels) ?? 0;

  it('counts the activation by its job, the webhook attempt and its duration', async () => {
    const before = await scrape();
    const distribution = await stack.http().post('/v1/distributions').set(stack.a.headers).send({ name: unique('Worker metrics'), trigger: ACTIVATED, target_url: receiver.url('/activated') });
    expect(distribution.status).toBe(200);
    const { campaign } = await pointsCampaign(stack.app, stack.a, [{ points: 15, days: 1 }]);
    const customer = unique('worker-metrics-holder');
    await enrol(stack.app, stack.a, campaign, customer);
    const order = (await payOrder(stack.app, stack.a, { source_id: unique('worker-metrics-order'), customer })).body as { id: string };
    const [entry] = await db.entries({ orderId: order.id });
    expect(entry.status).toBe('PENDING');

    const job = { operation_type: 'AUTOMATIC', trigger: 'job' };
    const success = { outcome: 'success' };
    const after = await waitFor(async () => {
      const now = await scrape();
      const delivered = value(now, 'loyalty_webhook_delivery_attempts_total', success) > value(before, 'loyalty_webhook_delivery_attempts_total', success);
      return delivered && receiver.on('/activated').length >= 1 ? now : undefined;
    }, { timeoutMs: 20_000 });
    expect((await db.entries({ orderId: order.id }))[0].status).toBe('ACTIVATED');
    expect(value(after, 'loyalty_pending_points_activations_total', job)).toBeGreaterThan(value(before, 'loyalty_pending_points_activations_total', job));
    // One duration observed per attempt.
    expect(value(after, 'loyalty_webhook_delivery_attempt_duration_seconds_count', success)).toBe(value(after, 'loyalty_webhook_delivery_attempts_total', success));
    expect(value(after, 'loyalty_webhook_delivery_attempt_duration_seconds_bucket', { ...success, le: '+Inf' })).toBe(value(after, 'loyalty_webhook_delivery_attempts_total', success));
    expect(value(after, 'loyalty_webhook_delivery_attempt_duration_seconds_sum', success)).toBeGreaterThanOrEqual(0);
  });

  it('counts a failed attempt by its outcome, and a failed job by its queue', async () => {
    const before = await scrape();
    receiver.script('/down', 500);
    const distribution = await stack.http().post('/v1/distributions').set(stack.a.headers).send({ name: unique('Worker metrics down'), trigger: ACTIVATED, target_url: receiver.url('/down') });
    expect((await stack.http().post(`/v1/distributions/${distribution.body.id}/test`).set(stack.a.headers)).status).toBe(200);
    // A job the worker has no handler for fails (no retry).
    await stack.app.get(JobQueueService).queue(QueueName.Diagnostics).add('no-such-job', {}, { attempts: 1, removeOnFail: true });

    const httpError = { outcome: 'http_error' };
    const diagnostics = { queue: QueueName.Diagnostics };
    const after = await waitFor(async () => {
      const now = await scrape();
      const attempted = value(now, 'loyalty_webhook_delivery_attempts_total', httpError) > value(before, 'loyalty_webhook_delivery_attempts_total', httpError);
      const failed = value(now, 'loyalty_queue_job_failures_total', diagnostics) > value(before, 'loyalty_queue_job_failures_total', diagnostics);
      return attempted && failed ? now : undefined;
    });
    expect(receiver.on('/down')).toHaveLength(1);
    expect(value(after, 'loyalty_webhook_delivery_attempt_duration_seconds_count', httpError)).toBe(value(after, 'loyalty_webhook_delivery_attempts_total', httpError));
    // The webhook job waiting for its retry went back to the delayed set: not a failure.
    expect(value(after, 'loyalty_queue_job_failures_total', { queue: QueueName.Webhooks })).toBe(value(before, 'loyalty_queue_job_failures_total', { queue: QueueName.Webhooks }));
  });

  it('closes its port when the worker stops', async () => {
    expect((await get('/metrics', `Bearer ${TOKEN}`)).status).toBe(200);
    const [worker] = workers;
    const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
    worker.kill('SIGTERM');
    expect(await exited).toBe(0);
    await expect(get('/metrics', `Bearer ${TOKEN}`)).rejects.toThrow();
  });
});

describe('WORKER_METRICS_PORT without METRICS_TOKEN or METRICS_PUBLIC=true (issue 36)', () => {
  it('the worker does not start: its /metrics would be closed to everyone', async () => {
    const config = testConfig();
    const child = spawn(process.execPath, ['dist/worker.js'], {
      cwd: new URL('../../', import.meta.url).pathname,
      env: { ...process.env, DATABASE_URL: config.databaseUrl, QUEUE_PREFIX: config.queuePrefix, WORKER_METRICS_PORT: String(await freePort()), METRICS_TOKEN: '', METRICS_PUBLIC: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    // A worker that starts after all is stopped, so that the failure does not leave it running.
    const stop = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    clearTimeout(stop);
    expect(code).toBe(1);
    expect(stderr).toContain('WORKER_METRICS_PORT needs METRICS_TOKEN (Prometheus sends it as a bearer token) or METRICS_PUBLIC=true');
  });
});
