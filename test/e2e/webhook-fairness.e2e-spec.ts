/**
 * @serial timing under measurement: runs alone (test/setup/file-environment.mjs).
 */
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
  /** Requests held now (not yet given up by the worker), per path. */
  readonly open = new Map<string, number>();
  /** The most requests held at once since `resetPeak`. */
  peak = 0;
  private released = false;
  private readonly server: Server = createServer((req, res) => {
    req.resume();
    if (this.released) return this.answer(res);
    this.held.push(res);
    const path = req.url ?? '/';
    this.open.set(path, (this.open.get(path) ?? 0) + 1);
    this.peak = Math.max(this.peak, this.openNow());
    res.on('close', () => this.open.set(path, (this.open.get(path) ?? 1) - 1));
  });

  /** Requests held now, on the paths that start with `prefix`. */
  openNow(prefix = ''): number {
    return [...this.open].reduce((sum, [path, n]) => sum + (path.startsWith(prefix) ? n : 0), 0);
  }

  resetPeak(): void {
    this.peak = this.openNow();
  }

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

  /** Holds the next requests again. */
  hang(): void {
    this.released = false;
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
    // A's targets answer at first: A earns its whole share (a project's window grows with timely answers).
    tarpit.release();
    await events(f.projectA, 40);
    await f.start();
    await waitFor(async () => ((await succeeded(hanging)) === 80 ? true : undefined), { timeoutMs: 30_000, intervalMs: 100 });
    // Then they hang, with a backlog of 300 events, 600 deliveries, all due before any of B's.
    tarpit.hang();
    await events(f.projectA, 300);
    await waitFor(async () => (tarpit.held.length >= PROJECT_MAX_IN_FLIGHT ? true : undefined), { timeoutMs: 30_000 });

    const ids = await events(f.projectB, 20);
    const received = await waitFor(async () => (receiver.on('/b').length >= ids.length ? receiver.on('/b') : undefined), { timeoutMs: 20_000, intervalMs: 100 });
    expect(new Set(received.map((r) => JSON.parse(r.body).event.id as string))).toEqual(new Set(ids));
    // Meanwhile A's requests still hang, and A never held more than its share of the worker's slots.
    expect(tarpit.answered).toBe(80);
    expect(tarpit.held.length).toBeGreaterThanOrEqual(PROJECT_MAX_IN_FLIGHT);
    expect(tarpit.held.length).toBeLessThanOrEqual(PROJECT_MAX_IN_FLIGHT);
    // Recorded just after the receiver answered.
    await waitFor(async () => ((await succeeded([healthy])) === ids.length ? true : undefined));
    expect(await succeeded(hanging)).toBe(80);

    // A's target answers again: its whole backlog goes out.
    tarpit.release();
    await waitFor(async () => ((await succeeded(hanging)) === 680 ? true : undefined), { timeoutMs: 60_000, intervalMs: 200 });
    expect(tarpit.answered).toBeGreaterThanOrEqual(680);
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
    // A's targets answer its first 2 × 30 tests: A earns its whole share (its window grows with timely answers).
    tarpit.release();
    for (let i = 0; i < 30; i += 1) await Promise.all(hanging.map((id) => sendTest(f.projectA, id)));
    await waitFor(async () => ((await succeeded(hanging)) === 60 ? true : undefined), { timeoutMs: 30_000, intervalMs: 100 });
    tarpit.hang();
    // 2 × 80 tests: before, 64 in flight per distribution filled the worker's 100 job slots.
    for (let i = 0; i < 80; i += 1) await Promise.all(hanging.map((id) => sendTest(f.projectA, id)));
    await waitFor(async () => (tarpit.held.length >= PROJECT_MAX_IN_FLIGHT ? true : undefined), { timeoutMs: 30_000 });

    for (let i = 0; i < 5; i += 1) await sendTest(f.projectB, healthy);
    await waitFor(async () => (receiver.on('/b').length >= 5 ? true : undefined), { timeoutMs: 20_000, intervalMs: 100 });
    await waitFor(async () => ((await succeeded([healthy])) === 5 ? true : undefined));
    // A never had more than its share of requests in flight, and none of them was answered.
    expect(tarpit.held.length).toBe(PROJECT_MAX_IN_FLIGHT);
    expect(tarpit.answered).toBe(60);

    // The tests A's jobs left to the dispatcher go out once its target answers: each once.
    tarpit.release();
    await waitFor(async () => ((await succeeded(hanging)) === 220 ? true : undefined), { timeoutMs: 60_000, intervalMs: 200 });
    expect(await db.count(`SELECT 1 FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.distribution_id = ANY($1)`, [hanging])).toBe(220);
  }, 180_000);
});

/** The dispatcher's slots per worker (DISPATCH_CONCURRENCY). */
const SLOTS = 100;

/**
 * `hanging` projects whose `perProject` distributions each point at the tarpit (paths `/h<i>/<j>`), beside
 * one healthy project whose distribution points at the receiver; the default share settings. The worker is
 * started by the test (`start()`), after the backlogs are in.
 */
function projectsBeside(hanging: number, perProject: number, overrides: Record<string, string>) {
  const receiver = new Receiver();
  const tarpit = new Tarpit();
  const db = new PointsDb();
  const config = testConfig({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32', WEBHOOK_RETRY_BASE_MS: '600000', WEBHOOK_SWEEP_MS: '500', ...overrides });
  let app: NestExpressApplication;
  let worker: INestApplicationContext | undefined;
  const fixture = {
    receiver,
    tarpit,
    db,
    hanging: [] as { project: TestProject; distributions: string[] }[],
    healthy: undefined as unknown as { project: TestProject; distribution: string },
    start: async () => void (worker = await startWorker(config)),
    /** `count` events of `project` committed at once; their ids and the time the commit returned. */
    events: async (project: TestProject, count: number) => {
      const rows = await db.query<{ id: string }>(
        `INSERT INTO events (id, project_id, type, entity_id, group_id, event_source, data)
         SELECT 'evcus_' || left(md5(random()::text || g), 18), $1, $2, 'cust_fairness', 'v-fairness', '{"channel":"INTERNAL"}', $4::json
         FROM generate_series(1, $3) g RETURNING id`,
        [project.project.id, ACTIVATED, count, sampleEventData(ACTIVATED)],
      );
      return { ids: rows.map((row) => row.id), committedAt: Date.now() };
    },
    /** When each of these events reached the healthy target, minus `committedAt`; waits for all of them. */
    latencies: async (ids: string[], committedAt: number, timeoutMs: number) => {
      const wanted = new Set(ids);
      const received = await waitFor(
        async () => {
          const got = receiver.on('/healthy').filter((r) => wanted.has(JSON.parse(r.body).event.id as string));
          return new Set(got.map((r) => JSON.parse(r.body).event.id)).size === ids.length ? got : undefined;
        },
        { timeoutMs, intervalMs: 50 },
      );
      return received.map((r) => r.at - committedAt);
    },
  };
  beforeAll(async () => {
    await receiver.start();
    await tarpit.start();
    await db.connect();
    app = await startApi(config);
    const distribution = async (project: TestProject, url: string) => {
      const res = await http(app).post('/v1/distributions').set(project.headers).send({ name: unique('Distribution'), trigger: ACTIVATED, target_url: url });
      expect(res.status).toBe(200);
      return res.body.id as string;
    };
    for (let i = 0; i < hanging; i += 1) {
      const project = await createProject(app, `Hanging targets ${i}`);
      const distributions: string[] = [];
      for (let j = 0; j < perProject; j += 1) distributions.push(await distribution(project, tarpit.url(`/h${i}/${j}`)));
      fixture.hanging.push({ project, distributions });
    }
    const project = await createProject(app, 'Healthy target');
    fixture.healthy = { project, distribution: await distribution(project, receiver.url('/healthy')) };
  });
  afterAll(async () => {
    tarpit.release();
    await worker?.close();
    await app.close();
    await db.end();
    await tarpit.stop();
    await receiver.stop();
  });
  return fixture;
}

/**
 * Issue 36: each project could hold WEBHOOK_PROJECT_MAX_IN_FLIGHT (50) of a worker's 100 slots, so two
 * projects whose targets hang held all of them, and every other project's deliveries waited for their
 * timeout. A project's share now adapts to the number of projects with work: with n projects, at most
 * 100/(n+1) each, which always leaves slots to a project that comes next. The targets here never answer
 * within the test (a 120 s timeout): the healthy project's deliveries must all arrive well before.
 */
describe.each([2, 5])('beside %i projects whose targets hang', (hangingProjects) => {
  const f = projectsBeside(hangingProjects, 2, { WEBHOOK_TIMEOUT_MS: '120000' });
  const { tarpit } = f;

  it("the healthy project's deliveries arrive in seconds, and no hanging project holds more than its share", async () => {
    // Each hanging project: a backlog of 100 events (200 deliveries), due before the healthy project's.
    for (const { project } of f.hanging) await f.events(project, 100);
    await f.start();
    // Every hanging project has requests held (the worker took its share, in turns).
    await waitFor(async () => (f.hanging.every((_, i) => tarpit.openNow(`/h${i}/`) > 0) ? true : undefined), { timeoutMs: 30_000 });

    const { ids, committedAt } = await f.events(f.healthy.project, 20);
    const latencies = await f.latencies(ids, committedAt, 20_000);
    expect(Math.max(...latencies)).toBeLessThan(15_000);
    // Recorded just after the receiver answered.
    await waitFor(async () => ((await f.db.count(`SELECT 1 FROM webhook_deliveries WHERE distribution_id = $1 AND status = 'SUCCEEDED'`, [f.healthy.distribution])) === ids.length ? true : undefined));

    // The hanging projects still hang, each within its share of the worker's slots, and slots are left.
    expect(tarpit.answered).toBe(0);
    const share = Math.floor(SLOTS / (hangingProjects + 1));
    for (let i = 0; i < hangingProjects; i += 1) expect(tarpit.openNow(`/h${i}/`)).toBeLessThanOrEqual(share);
    expect(tarpit.openNow()).toBeLessThan(SLOTS);
  }, 90_000);
});

/**
 * Issue 36, with more hanging projects than shares and windows keep apart: thirty projects whose targets
 * never answer within the 4 s timeout. Each, new to the worker, holds its initial window (two requests:
 * sixty in all, past half of the slots); once those went unanswered, these projects count as slow, and slow
 * projects together hold at most half of a worker's slots, however many there are. The healthy project's
 * deliveries meanwhile arrive well within the timeout.
 */
describe('beside many projects whose targets hang', () => {
  const hangingProjects = 30;
  const timeoutMs = 4_000;
  const f = projectsBeside(hangingProjects, 1, { WEBHOOK_TIMEOUT_MS: String(timeoutMs) });
  const { tarpit, db } = f;
  const failedAttempts = () =>
    db.count(`SELECT 1 FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.project_id = ANY($1)`, [f.hanging.map((h) => h.project.project.id)]);

  it('slow projects together hold at most half of the slots, and the healthy project is served meanwhile', async () => {
    for (const { project } of f.hanging) await f.events(project, 20);
    await f.start();
    await waitFor(async () => (tarpit.openNow() > SLOTS / 2 ? true : undefined), { timeoutMs: 30_000 });
    // The first requests went unanswered (recorded as failed attempts), and those still held are within half.
    const first = await waitFor(async () => {
      const n = await failedAttempts();
      return n > 0 ? n : undefined;
    }, { timeoutMs: 30_000 });
    await waitFor(async () => (tarpit.openNow() <= SLOTS / 2 ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
    tarpit.resetPeak();

    // Two more rounds of timeouts (half of the slots each), with the healthy project's events beside them.
    const latencies: number[] = [];
    for (let round = 0; round < 4; round += 1) {
      const { ids, committedAt } = await f.events(f.healthy.project, 10);
      latencies.push(...(await f.latencies(ids, committedAt, 20_000)));
    }
    await waitFor(async () => ((await failedAttempts()) >= first + 2 * (SLOTS / 2) ? true : undefined), { timeoutMs: 40_000, intervalMs: 200 });
    expect(tarpit.peak).toBeLessThanOrEqual(SLOTS / 2);
    expect(Math.max(...latencies)).toBeLessThan(timeoutMs / 2);
    expect(tarpit.answered).toBe(0);
  }, 120_000);
});
