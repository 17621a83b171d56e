import { useStack } from '../support/fixture.js';
import { type TestProject, testConfig, waitFor } from '../support/harness.js';
import { unique } from '../support/points.js';
import { sampleEventData } from '../support/sample-events.js';

const ACTIVATED = 'customer.voucher.loyalty_card.pending_points.activated' as const;
const MIB = 1024 * 1024;
const SETTINGS = { WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32', WEBHOOK_RETRY_BASE_MS: '600000', WEBHOOK_SWEEP_MS: '500' };
/** The worker's: a statement timeout that a normal claim or load keeps and reading a 36 MB event does not; a budget between the two events. */
const WORKER_SETTINGS = { ...SETTINGS, DATABASE_QUERY_TIMEOUT_MS: '150', WEBHOOK_DISPATCH_MAX_BYTES: String(40 * MIB) };

/**
 * Issue 36: one large event stopped webhook delivery for every project. The dispatcher's claim read the
 * payload of every delivery it claimed in one round trip: with an event too large to read within the
 * statement timeout, every claim timed out, nothing was recorded, and no project's deliveries went out.
 * Scaled down: events of 36 and 48 MB written by SQL (as if in the log before events had a size bound),
 * three distributions of one project, and a 150 ms statement timeout for the worker.
 */
describe('a project whose events are huge', () => {
  const stack = useStack({ config: SETTINGS, receiver: true, projects: ['Huge events', 'Small events'], pointsDb: true });
  const { receiver, db } = stack;

  const distribution = async (who: TestProject, path: string) => {
    const res = await stack.http().post('/v1/distributions').set(who.headers).send({ name: unique('Distribution'), trigger: ACTIVATED, target_url: receiver.url(path) });
    expect(res.status).toBe(200);
    return res.body.id as string;
  };
  /**
   * `count` events of `who` committed at once: the type's sample (the run's teardown checks every event
   * against its schema) whose customer's metadata holds about `bytes` bytes of hex, which PostgreSQL does not
   * compress; their ids.
   */
  const events = async (who: TestProject, count: number, bytes: number) =>
    (
      await db.query<{ id: string }>(
        `INSERT INTO events (id, project_id, type, entity_id, group_id, event_source, data)
         SELECT 'evcus_' || left(md5(random()::text || n), 18), $1, $2, 'cust_huge', 'v-huge', '{"channel":"INTERNAL"}',
                jsonb_set($5::jsonb, '{customer,metadata}', jsonb_build_object('blob', (SELECT string_agg(md5(g::text || n), '') FROM generate_series(1, $4::int / 32) g)))::json
         FROM generate_series(1, $3::int) n RETURNING id`,
        [who.project.id, ACTIVATED, count, bytes, sampleEventData(ACTIVATED)],
      )
    ).map((row) => row.id);
  const lastErrors = (distributionIds: string[]) =>
    db.query<{ event_id: string; status: string; attempts_count: number; load_failures: number; error: string | null }>(
      `SELECT d.event_id, d.status, d.attempts_count, d.load_failures,
              (SELECT a.error FROM webhook_attempts a WHERE a.delivery_id = d.id ORDER BY a.at DESC LIMIT 1) AS error
       FROM webhook_deliveries d WHERE d.distribution_id = ANY($1)`,
      [distributionIds],
    );

  it("another project's deliveries flow beside it, and its own get recorded failed attempts", async () => {
    const huge = [await distribution(stack.a, '/huge/1'), await distribution(stack.a, '/huge/2'), await distribution(stack.a, '/huge/3')];
    const small = await distribution(stack.b, '/small');
    // Due first: one event within the worker's budget that cannot be read within the statement timeout,
    // and one beyond the budget.
    const [loadable] = await events(stack.a, 1, 36 * MIB);
    const [tooLarge] = await events(stack.a, 1, 48 * MIB);
    const ids = await events(stack.b, 20, 200);
    await stack.startWorker(testConfig(WORKER_SETTINGS));

    const received = await waitFor(async () => (receiver.on('/small').length >= ids.length ? receiver.on('/small') : undefined), { timeoutMs: 30_000, intervalMs: 100 });
    expect(new Set(received.map((r) => JSON.parse(r.body).event.id as string))).toEqual(new Set(ids));

    // The huge project's six deliveries each get one failed attempt, recorded: the one beyond the budget at
    // its first claim, the one that cannot be read after three claims. Their retries are scheduled.
    const attempts = await waitFor(
      async () => {
        const rows = await lastErrors(huge);
        return rows.length === 6 && rows.every((row) => row.attempts_count === 1) ? rows : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    for (const row of attempts.filter((r) => r.event_id === tooLarge)) {
      expect(row).toMatchObject({ status: 'PENDING', load_failures: 0 });
      expect(row.error).toMatch(/^could not send: the event's payload \(\d+ bytes\) is larger than WEBHOOK_DISPATCH_MAX_BYTES \(41943040\)$/);
    }
    for (const row of attempts.filter((r) => r.event_id === loadable)) {
      expect(row).toMatchObject({ status: 'PENDING', load_failures: 0 });
      expect(row.error).toMatch(/^could not load the event \(3 tries\): /);
    }
    expect(receiver.requests.filter((r) => r.path.startsWith('/huge'))).toHaveLength(0);
    expect(await db.count(`SELECT 1 FROM webhook_deliveries WHERE distribution_id = $1 AND status = 'SUCCEEDED'`, [small])).toBe(ids.length);
  }, 120_000);
});
