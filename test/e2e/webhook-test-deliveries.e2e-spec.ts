import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { useStack } from '../support/fixture.js';
import { waitFor } from '../support/harness.js';
import { unique } from '../support/points.js';

const ADDED = 'customer.voucher.loyalty_card.pending_points.added';
const SETTINGS = { WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32', WEBHOOK_RETRY_BASE_MS: '200', WEBHOOK_TIMEOUT_MS: '700', WEBHOOK_SWEEP_MS: '500' };

/** What the dashboard needs from the API: "Send test", the body of a delivery, a distribution's stats. */
describe('test deliveries, request bodies and distribution stats', () => {
  const stack = useStack({ config: SETTINGS, receiver: true, worker: true, projects: ['Test deliveries', 'Other project'] });
  const { receiver } = stack;

  const distribution = async (path: string, body: object = {}) => {
    const res = await stack.http().post('/v1/distributions').set(stack.a.headers).send({ name: unique('Distribution'), trigger: ADDED, target_url: receiver.url(path), ...body });
    expect(res.status).toBe(200);
    return res.body as { id: string };
  };
  const sendTest = async (distributionId: string) => {
    const res = await stack.http().post(`/v1/distributions/${distributionId}/test`).set(stack.a.headers);
    expect(res.status).toBe(200);
    return res.body as { id: string; status: string; test: boolean; event_id: string; event_type: string; attempts: unknown[] };
  };
  const settled = (distributionId: string, deliveryId: string) =>
    waitFor(async () => {
      const res = await stack.http().get(`/v1/distributions/${distributionId}/deliveries/${deliveryId}`).set(stack.a.headers);
      return res.body.status === 'PENDING' ? undefined : (res.body as { status: string; attempts_count: number; request_body: string; test: boolean });
    });
  const stats = async (distributionId: string) => (await stack.http().get(`/v1/distributions/${distributionId}/stats`).set(stack.a.headers)).body;

  it('sends a signed sample event of the trigger, held while the distribution is PAUSED, and shows the exact body sent', async () => {
    const dist = await distribution('/test-ok', { status: 'PAUSED' });
    const key = ((await stack.http().get('/v1/webhook-secret').set(stack.a.headers)).body as { secret: string }).secret;
    const created = await sendTest(dist.id);
    expect(created).toMatchObject({ object: 'webhook_delivery', status: 'PENDING', test: true, event_type: ADDED, attempts: [], next_attempt_at: null });
    expect(created.event_id).toBe(`evtest_${created.id.slice(4)}`);

    // Paused sends nothing, tests included (issue 26): a test sent to an ACTIVE distribution after it arrives,
    // and sweeps run, while this one waits with no due time.
    const active = await distribution('/test-ok-active');
    const later = await sendTest(active.id);
    expect(await settled(active.id, later.id)).toMatchObject({ status: 'SUCCEEDED' });
    await waitFor(async () => (receiver.on('/test-ok-active').length ? true : undefined));
    expect(receiver.on('/test-ok')).toHaveLength(0);
    const waiting = (await stack.http().get(`/v1/distributions/${dist.id}/deliveries/${created.id}`).set(stack.a.headers)).body;
    expect(waiting).toMatchObject({ status: 'PENDING', attempts_count: 0, next_attempt_at: null });
    // A redeliver asked for meanwhile waits too.
    expect((await stack.http().post(`/v1/distributions/${dist.id}/deliveries/${created.id}/redeliver`).set(stack.a.headers)).body).toMatchObject({ status: 'PENDING', next_attempt_at: null });
    // ACTIVE again: it is sent now.
    expect((await stack.http().put(`/v1/distributions/${dist.id}`).set(stack.a.headers).send({ status: 'ACTIVE' })).body.status).toBe('ACTIVE');

    const [request] = await waitFor(async () => (receiver.on('/test-ok').length ? receiver.on('/test-ok') : undefined));
    expect(request.headers['webhook-id']).toBe(created.id);
    expect(request.headers['x-voucherify-signature']).toBe(createHmac('sha256', key).update(request.body).digest('hex'));
    expect(() => new Webhook(key).verify(request.body, request.headers as Record<string, string>)).not.toThrow();
    const body = JSON.parse(request.body);
    expect(body).toMatchObject({ id: created.id, type: ADDED, data: { test: true, pending_points: { status: 'PENDING', points: 100 } }, event: { id: created.event_id, type: ADDED } });
    // The sample's entry has a real one's dates: the day (Voucherify's `activates_at`) and the moment.
    expect(body.data.pending_points.activates_at_time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(body.data.pending_points.activates_at).toBe(body.data.pending_points.activates_at_time.slice(0, 10));
    // Pending points are added by a request (a paid order): the sample names a made-up key, as a real event names the caller's.
    expect(body.event.event_source).toEqual({ channel: 'API', api_key: { name: 'Test key', app_id: `app_test_${created.id.slice(4)}` } });

    const delivery = await settled(dist.id, created.id);
    expect(delivery).toMatchObject({ status: 'SUCCEEDED', attempts_count: 1, test: true });
    expect(delivery.request_body).toBe(request.body);
    // A sample, not a change: it is in no event log.
    expect((await stack.http().get(`/v1/events/${created.event_id}`).set(stack.a.headers)).status).toBe(404);
  });

  it('a failed test is FAILED after one attempt and leaves the distribution ACTIVE', async () => {
    const dist = await distribution('/test-fail');
    receiver.script('/test-fail', 500, 500, 500);
    const created = await sendTest(dist.id);
    const delivery = await settled(dist.id, created.id);
    expect(delivery).toMatchObject({ status: 'FAILED', attempts_count: 1 });
    expect((await stack.http().get(`/v1/distributions/${dist.id}`).set(stack.a.headers)).body.status).toBe('ACTIVE');
    expect(receiver.on('/test-fail')).toHaveLength(1);
  });

  it('stats: the latest delivery with its last attempt, and the last 24 hours by status', async () => {
    const dist = await distribution('/stats');
    expect(await stats(dist.id)).toEqual({ object: 'distribution_stats', distribution_id: dist.id, last_delivery: null, last_24h: { succeeded: 0, failed: 0, pending: 0 } });
    const ok = await sendTest(dist.id);
    await settled(dist.id, ok.id);
    receiver.script('/stats', 503);
    const failed = await sendTest(dist.id);
    await settled(dist.id, failed.id);
    const result = await stats(dist.id);
    expect(result.last_24h).toEqual({ succeeded: 1, failed: 1, pending: 0 });
    expect(result.last_delivery).toMatchObject({ id: failed.id, status: 'FAILED', status_code: 503 });
    expect(Date.parse(result.last_delivery.at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('answers 404 for a distribution that is not the project\'s', async () => {
    const dist = await distribution('/mine');
    for (const path of [`/v1/distributions/${dist.id}/test`, `/v1/distributions/distr_0000000000000000/test`]) {
      const res = await stack.http().post(path).set(stack.b.headers);
      expect(res.status).toBe(404);
      expect(res.body.key).toBe('not_found');
    }
    expect((await stack.http().get(`/v1/distributions/${dist.id}/stats`).set(stack.b.headers)).status).toBe(404);
  });
});
