import type { ServerResponse } from 'node:http';
import { RETRY_AFTER_CAP_MS } from '../../src/events/delivery/worker/retry-schedule.js';
import { useStack } from '../support/fixture.js';
import { type TestProject, waitFor } from '../support/harness.js';
import { enrol, payOrder, pointsCampaign, unique } from '../support/points.js';

const ACTIVATED = 'customer.voucher.loyalty_card.pending_points.activated';
const SETTINGS = { WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32', WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_SWEEP_MS: '500' };

/**
 * Attempts that cannot even be sent, and answers that ask for the impossible, are recorded like any failed
 * attempt (issue 26): a header value Node refuses is a 400 at the API; one already stored (an older install)
 * fails each attempt with its error, on the retry schedule, to FAILED and PAUSED; a `Retry-After` of
 * thirteen digits waits the cap. A project's own actions do not stop everyone's deliveries: deleting a
 * distribution while its attempt is in flight, or 30 attempts answered 410 at once. Meanwhile another
 * project's deliveries flow.
 */
describe('webhook attempts that cannot be sent are still recorded', () => {
  const stack = useStack({ config: SETTINGS, receiver: true, worker: true, projects: ['Unsendable webhooks', 'Healthy webhooks'], pointsDb: true });
  const { receiver, db } = stack;

  const distribution = async (who: TestProject, path: string, body: object = {}) => {
    const res = await stack.http().post('/v1/distributions').set(who.headers).send({ name: unique('Distribution'), trigger: ACTIVATED, target_url: receiver.url(path), ...body });
    return res;
  };
  /** A pending entry activated by hand: one `activated` event, so one delivery per ACTIVE distribution. */
  const activation = async (who: TestProject) => {
    const { campaign } = await pointsCampaign(stack.app, who, [{ points: 5, days: 30 }]);
    const customer = unique('holder');
    const code = await enrol(stack.app, who, campaign, customer);
    const order = await payOrder(stack.app, who, { source_id: unique('order'), customer });
    const [entry] = await db.entries({ orderId: order.body.id });
    expect((await stack.http().post(`/v1/loyalties/members/${code}/pending-points/${entry.id}/activate`).set(who.headers)).status).toBe(200);
    return entry.id;
  };
  const deliveries = (distributionId: string) =>
    db.query<{ id: string; status: string; attempts_count: number; next_attempt_at: Date | null; error: string | null }>(
      `SELECT d.id, d.status, d.attempts_count, d.next_attempt_at,
              (SELECT a.error FROM webhook_attempts a WHERE a.delivery_id = d.id ORDER BY a.at DESC LIMIT 1) AS error
       FROM webhook_deliveries d WHERE d.distribution_id = $1`,
      [distributionId],
    );

  it('refuses a custom header value that Node would not send, naming the header, and takes Latin-1', async () => {
    for (const value of ['Łódź', 'token €', '\u0001', '\u007f']) {
      const res = await distribution(stack.a, '/never', { custom_headers: { 'x-city': value } });
      expect({ value, status: res.status, key: res.body.key, details: res.body.details }).toEqual({
        value,
        status: 400,
        key: 'invalid_payload',
        details: 'custom_headers.x-city must hold only tab, printable ASCII and Latin-1 characters (U+0080–U+00FF), as HTTP header values do',
      });
    }
    const made = await distribution(stack.a, '/zurich', { custom_headers: { 'x-city': 'Zürich' } });
    expect(made.status).toBe(200);
    const dist = made.body.id as string;
    const put = await stack.http().put(`/v1/distributions/${dist}`).set(stack.a.headers).send({ custom_headers: { 'x-city': 'Łódź' } });
    expect(put.body).toMatchObject({ code: 400, key: 'invalid_payload' });
    await stack.http().delete(`/v1/distributions/${dist}`).set(stack.a.headers);
  });

  it('a stored header that Node refuses: each attempt is recorded as failed, retried on the schedule, then FAILED and the distribution PAUSED; other projects are served', async () => {
    const made = await distribution(stack.a, '/refused');
    expect(made.status).toBe(200);
    const dist = made.body.id as string;
    // As an install made before the API checked header values would have it.
    await db.query(`UPDATE distributions SET custom_headers = '{"x-city":"Łódź"}'::jsonb WHERE id = $1`, [dist]);
    await activation(stack.a);
    const retried = await waitFor(async () => {
      const [d] = await deliveries(dist);
      return d && d.attempts_count >= 2 ? d : undefined;
    });
    expect(retried).toMatchObject({ status: 'PENDING' });
    expect(retried.error).toMatch(/^could not send: Invalid character in header content \["x-city"\]/);
    expect(receiver.on('/refused')).toHaveLength(0);

    // Another project's delivery is claimed and sent meanwhile.
    const healthy = await distribution(stack.b, '/healthy');
    expect(healthy.status).toBe(200);
    const entryId = await activation(stack.b);
    await waitFor(async () => (receiver.on('/healthy').some((r) => JSON.parse(r.body).data.pending_points?.id === entryId) ? true : undefined));

    // The last retry: the delivery fails and its distribution is paused, as for any target that keeps failing.
    await db.query('UPDATE webhook_deliveries SET attempts_count = 12, next_attempt_at = now() WHERE distribution_id = $1', [dist]);
    const failed = await waitFor(async () => {
      const [d] = await deliveries(dist);
      return d.status === 'FAILED' ? d : undefined;
    });
    // 13 attempts: the twelfth set here, then the last one; 14 when an attempt claimed before the update
    // was still in flight (it adds its own to the 12 set here, and the next one is the last).
    expect(failed).toMatchObject({ next_attempt_at: null });
    expect([13, 14]).toContain(failed.attempts_count);
    expect((await stack.http().get(`/v1/distributions/${dist}`).set(stack.a.headers)).body.status).toBe('PAUSED');
  });

  it(`a Retry-After of thirteen digits waits the cap (${RETRY_AFTER_CAP_MS / 3_600_000} h) and is recorded`, async () => {
    const made = await distribution(stack.a, '/forever');
    const dist = made.body.id as string;
    receiver.script('/forever', { status: 503, headers: { 'Retry-After': '9999999999999' } });
    const before = Date.now();
    await activation(stack.a);
    const [d] = await waitFor(async () => {
      const rows = await deliveries(dist);
      return rows[0]?.attempts_count === 1 ? rows : undefined;
    });
    expect(d).toMatchObject({ status: 'PENDING', error: 'answered 503' });
    const wait = (d.next_attempt_at as Date).getTime() - before;
    expect(wait).toBeGreaterThan(RETRY_AFTER_CAP_MS - 60_000);
    expect(wait).toBeLessThanOrEqual(RETRY_AFTER_CAP_MS + 60_000);
  });

  /** Holds the requests to `path` until `release(status)`, which answers them all at once. */
  const holding = (path: string, count: number) => {
    const held: ServerResponse[] = [];
    receiver.script(path, ...Array.from({ length: count }, () => (res: ServerResponse) => void held.push(res)));
    return {
      held,
      release: (status: number) => {
        for (const res of held.splice(0)) {
          res.writeHead(status);
          res.end('bye');
        }
      },
    };
  };
  const healthyDelivery = async () => {
    const entryId = await activation(stack.b);
    await waitFor(async () => (receiver.on('/healthy-2').some((r) => JSON.parse(r.body).data.pending_points?.id === entryId) ? true : undefined), { timeoutMs: 10_000 });
  };

  it('a distribution deleted while its attempt is in flight: the attempt is dropped, and every other delivery goes on', async () => {
    expect((await distribution(stack.b, '/healthy-2')).status).toBe(200);
    const made = await distribution(stack.a, '/deleted');
    const dist = made.body.id as string;
    const hold = holding('/deleted', 1);
    await activation(stack.a);
    await waitFor(async () => (hold.held.length === 1 ? true : undefined));
    expect((await stack.http().delete(`/v1/distributions/${dist}`).set(stack.a.headers)).status).toBe(204);
    hold.release(200);
    // On the old code recording that attempt failed its foreign key and the dispatcher retried the whole
    // batch every second for ever, claiming nothing more for anyone.
    await healthyDelivery();
    await healthyDelivery();
    expect(await db.count('SELECT 1 FROM webhook_deliveries WHERE distribution_id = $1', [dist])).toBe(0);
  });

  it('30 attempts answered 410 at once: the distribution is DISABLED once, its deliveries FAILED, and a PUT on it answers', async () => {
    // The project earns its window of requests in flight first (issue 36: it grows with timely answers).
    const warm = (await distribution(stack.a, '/gone-warm')).body.id as string;
    for (let i = 0; i < 60; i += 1) expect((await stack.http().post(`/v1/distributions/${warm}/test`).set(stack.a.headers)).status).toBeLessThan(300);
    await waitFor(async () => (receiver.on('/gone-warm').length >= 60 ? true : undefined), { timeoutMs: 20_000 });
    const made = await distribution(stack.a, '/gone-together');
    const dist = made.body.id as string;
    const hold = holding('/gone-together', 30);
    for (let i = 0; i < 30; i += 1) expect((await stack.http().post(`/v1/distributions/${dist}/test`).set(stack.a.headers)).status).toBeLessThan(300);
    await waitFor(async () => (hold.held.length === 30 ? true : undefined), { timeoutMs: 20_000 });
    hold.release(410);
    const disabled = await waitFor(async () => {
      const res = await stack.http().get(`/v1/distributions/${dist}`).set(stack.a.headers);
      return res.body.status === 'DISABLED' ? res.body : undefined;
    }, { timeoutMs: 10_000 });
    expect(disabled.status).toBe('DISABLED');
    await waitFor(async () => ((await deliveries(dist)).every((d) => d.status === 'FAILED' && d.attempts_count === 1) ? true : undefined), { timeoutMs: 10_000 });
    const put = await stack.http().put(`/v1/distributions/${dist}`).set(stack.a.headers).send({ name: 'renamed after the storm' });
    expect(put.status).toBe(200);
    await healthyDelivery();
  });
});
