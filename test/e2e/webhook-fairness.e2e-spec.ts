import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplicationContext } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { type TestProject, createProject, http, startApi, startWorker, testConfig, waitFor } from '../support/harness.js';
import { PointsDb, unique } from '../support/points.js';
import { Receiver } from '../support/receiver.js';
import { sampleEventData } from '../support/sample-events.js';

const ACTIVATED = 'customer.voucher.loyalty_card.pending_points.activated' as const;
const PROJECT_MAX_IN_FLIGHT = 30;

/**
 * A target that takes every request and answers none, until released: then it answers the requests it
 * holds, and every later one, 200 at once.
 */
class Tarpit {
  readonly held: ServerResponse[] = [];
  answered = 0;
  private released = false;
  private readonly server: Server = createServer((req, res) => {
    req.resume();
    if (this.released) return this.answer(res);
    this.held.push(res);
  });

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  release(): void {
    this.released = true;
    for (const res of this.held.splice(0)) this.answer(res);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private answer(res: ServerResponse): void {
    this.answered += 1;
    res.writeHead(200).end('ok');
  }
}

/**
 * Two projects beside each other: A's distributions point at the tarpit, B's at a receiver. The worker is
 * started by the test (`start()`), after what must exist before it.
 */
function twoProjects(overrides: Record<string, string>) {
  const receiver = new Receiver();
  const tarpit = new Tarpit();
  const db = new PointsDb();
  const config = testConfig({
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
    WEBHOOK_TIMEOUT_MS: '120000',
    WEBHOOK_RETRY_BASE_MS: '600000',
    WEBHOOK_PROJECT_MAX_IN_FLIGHT: String(PROJECT_MAX_IN_FLIGHT),
    ...overrides,
  });
  const fixture = {
    receiver,
    tarpit,
    db,
    app: undefined as unknown as NestExpressApplication,
    worker: undefined as INestApplicationContext | undefined,
    projectA: undefined as unknown as TestProject,
    projectB: undefined as unknown as TestProject,
    start: async () => void (fixture.worker = await startWorker(config)),
    distribution: async (project: TestProject, url: string) => {
      const res = await http(fixture.app).post('/v1/distributions').set(project.headers).send({ name: unique('Distribution'), trigger: ACTIVATED, target_url: url });
      expect(res.status).toBe(200);
      return res.body.id as string;
    },
    succeeded: (distributionIds: string[]) => db.count(`SELECT 1 FROM webhook_deliveries WHERE distribution_id = ANY($1) AND status = 'SUCCEEDED'`, [distributionIds]),
  };
  beforeAll(async () => {
    await receiver.start();
    await tarpit.start();
    await db.connect();
    fixture.app = await startApi(config);
    fixture.projectA = await createProject(fixture.app, 'Hanging targets');
    fixture.projectB = await createProject(fixture.app, 'Healthy target');
  });
  afterAll(async () => {
    tarpit.release();
    await fixture.worker?.close();
    await fixture.app.close();
    await db.end();
    await tarpit.stop();
    await receiver.stop();
  });
  return fixture;
}

/**
 * Issue 26: one project cannot stall another's webhooks. Project A has two distributions whose target
 * accepts requests and never answers (the attempts' timeout is longer than the test) and a backlog of
 * hundreds of due deliveries, older than project B's; B's distribution answers at once. B's deliveries
 * arrive while A's requests hang, A holds no more than its share of the worker's slots, and A's backlog
 * is delivered once its target answers.
 */
describe('fair dispatch between projects', () => {
  const f = twoProjects({ WEBHOOK_SWEEP_MS: '500' });
  const { receiver, tarpit, db, distribution, succeeded } = f;

  /** `count` events of `project` committed in one transaction; their ids. */
  const events = async (project: TestProject, count: number) =>
    (
      await db.query<{ id: string }>(
        `INSERT INTO events (id, project_id, type, entity_id, group_id, event_source, data)
         SELECT 'evcus_' || left(md5(random()::text || g), 18), $1, $2, 'cust_fairness', 'v-fairness', '{"channel":"INTERNAL"}', $4::json
         FROM generate_series(1, $3) g RETURNING id`,
        [project.project.id, ACTIVATED, count, sampleEventData(ACTIVATED)],
      )
    ).map((row) => row.id);

  it("a project whose targets hang holds its share of the slots, and another project's deliveries go out meanwhile", async () => {
    const hanging = [await distribution(f.projectA, tarpit.url('/a1')), await distribution(f.projectA, tarpit.url('/a2'))];
    const healthy = await distribution(f.projectB, receiver.url('/b'));
    // A's backlog: 300 events, 600 deliveries, all due before any of B's.
    await events(f.projectA, 300);
    await f.start();
    await waitFor(async () => (tarpit.held.length >= PROJECT_MAX_IN_FLIGHT ? true : undefined), { timeoutMs: 30_000 });

    const ids = await events(f.projectB, 20);
    const received = await waitFor(async () => (receiver.on('/b').length >= ids.length ? receiver.on('/b') : undefined), { timeoutMs: 20_000, intervalMs: 100 });
    expect(new Set(received.map((r) => JSON.parse(r.body).event.id as string))).toEqual(new Set(ids));
    // Meanwhile A's requests still hang, and A never held more than its share of the worker's slots.
    expect(tarpit.answered).toBe(0);
    expect(tarpit.held.length).toBeGreaterThanOrEqual(PROJECT_MAX_IN_FLIGHT);
    expect(tarpit.held.length).toBeLessThanOrEqual(PROJECT_MAX_IN_FLIGHT);
    expect(await succeeded([healthy])).toBe(ids.length);
    expect(await succeeded(hanging)).toBe(0);

    // A's target answers again: its whole backlog goes out.
    tarpit.release();
    await waitFor(async () => ((await succeeded(hanging)) === 600 ? true : undefined), { timeoutMs: 60_000, intervalMs: 200 });
    expect(tarpit.answered).toBeGreaterThanOrEqual(600);
  }, 120_000);
});

/**
 * The same for the queue jobs (test deliveries here; retries and redeliveries take the same path): a
 * project's jobs whose targets hang filled every one of the worker's job slots (64 in flight per
 * distribution, two distributions), and another project's test waited behind them. Now a job of a project
 * at its share leaves the due delivery to the dispatcher's fair claim and ends at once.
 */
describe('fair queue jobs between projects', () => {
  // No sweep during the test: the jobs (and the dispatchers they hand over to) alone send the tests.
  const f = twoProjects({ WEBHOOK_SWEEP_MS: '600000', RATE_LIMIT_PER_SECOND: '0' });
  const { receiver, tarpit, db, distribution, succeeded } = f;
  beforeAll(() => f.start());

  const sendTest = async (project: TestProject, distributionId: string) => {
    const res = await http(f.app).post(`/v1/distributions/${distributionId}/test`).set(project.headers).send();
    expect(res.status).toBe(200);
  };

  it("a project's test deliveries to hanging targets leave another project's tests their slots", async () => {
    const hanging = [await distribution(f.projectA, tarpit.url('/a1')), await distribution(f.projectA, tarpit.url('/a2'))];
    const healthy = await distribution(f.projectB, receiver.url('/b'));
    // 2 × 80 tests: before, 64 in flight per distribution filled the worker's 100 job slots.
    for (let i = 0; i < 80; i += 1) await Promise.all(hanging.map((id) => sendTest(f.projectA, id)));
    await waitFor(async () => (tarpit.held.length >= PROJECT_MAX_IN_FLIGHT ? true : undefined), { timeoutMs: 30_000 });

    for (let i = 0; i < 5; i += 1) await sendTest(f.projectB, healthy);
    await waitFor(async () => (receiver.on('/b').length >= 5 ? true : undefined), { timeoutMs: 20_000, intervalMs: 100 });
    expect(await succeeded([healthy])).toBe(5);
    // A never had more than its share of requests in flight, and none of them was answered.
    expect(tarpit.held.length).toBe(PROJECT_MAX_IN_FLIGHT);
    expect(tarpit.answered).toBe(0);

    // The tests A's jobs left to the dispatcher go out once its target answers: each once.
    tarpit.release();
    await waitFor(async () => ((await succeeded(hanging)) === 160 ? true : undefined), { timeoutMs: 60_000, intervalMs: 200 });
    expect(await db.count(`SELECT 1 FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.distribution_id = ANY($1)`, [hanging])).toBe(160);
  }, 180_000);
});
