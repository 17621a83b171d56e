import { type AddressInfo, connect } from 'node:net';
import type { NestExpressApplication } from '@nestjs/platform-express';
import voucherify from '@voucherify/sdk';
import { Redis } from 'ioredis';
import type { Response } from 'supertest';
import { type TestProject, createProject, http, startApi, testConfig, waitFor } from '../support/harness.js';
import { TcpProxy } from '../support/tcp-proxy.js';

const LIST = '/v1/loyalties';
const HEADERS = ['x-rate-limit-limit', 'x-rate-limit-remaining', 'x-rate-limit-retry'];

/** `count` requests sent at once; the answers and how long they took (ms). */
async function burst(app: NestExpressApplication, who: TestProject, count: number): Promise<{ answers: Response[]; elapsedMs: number }> {
  const started = Date.now();
  const answers = await Promise.all(Array.from({ length: count }, () => http(app).get(LIST).set(who.headers)));
  return { answers, elapsedMs: Date.now() - started };
}

const statuses = (answers: Response[]) => answers.map((answer) => answer.status);
const accepted = (answers: Response[]) => answers.filter((answer) => answer.status === 200).length;

/**
 * Per-project rate limits (RATE_LIMIT_PER_SECOND, bursts of twice that) kept in Redis. At 1 request per
 * second the bucket holds 2: from a full bucket, N requests sent together within t seconds can get at most
 * 2 + floor(t) accepted, whatever the machine's speed.
 */
describe('rate limits per project', () => {
  const apps: NestExpressApplication[] = [];
  const slow = async (overrides: Record<string, string> = {}) => {
    const app = await startApi(testConfig({ RATE_LIMIT_PER_SECOND: '1', ...overrides }));
    apps.push(app);
    return app;
  };
  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  it("answers carry Voucherify's X-Rate-Limit headers; over the limit → 429 too_many_requests with Retry-After", async () => {
    const app = await slow();
    const project = await createProject(app);
    const first = await http(app).get(LIST).set(project.headers);
    expect(first.status).toBe(200);
    expect(first.headers['x-rate-limit-limit']).toBe('2');
    expect(first.headers['x-rate-limit-remaining']).toBe('1');
    // A token is left, so the next request is accepted now.
    expect(Number(first.headers['x-rate-limit-retry'])).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));

    const { answers, elapsedMs } = await burst(app, project, 6);
    expect(accepted(answers)).toBeLessThanOrEqual(1 + Math.floor(elapsedMs / 1000));
    const refused = answers.find((answer) => answer.status === 429);
    expect(refused).toBeDefined();
    expect(refused!.body).toEqual({
      code: 429,
      key: 'too_many_requests',
      message: 'Too many requests',
      details: "The project's rate limit (1 requests per second, bursts of 2) is used up; retry in 1 s",
      request_id: refused!.headers['x-request-id'],
    });
    expect(refused!.headers['retry-after']).toBe('1');
    expect(refused!.headers['x-rate-limit-remaining']).toBe('0');
    const retryAt = Number(refused!.headers['x-rate-limit-retry']);
    expect(retryAt).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
    expect(retryAt).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 1);

    // The bucket refills: a later request is accepted again.
    const again = await waitFor(async () => {
      const res = await http(app).get(LIST).set(project.headers);
      return res.status === 200 ? res : undefined;
    });
    expect(again.headers['x-rate-limit-limit']).toBe('2');
  });

  it('each project has its own bucket', async () => {
    const app = await slow();
    const [busy, quiet] = [await createProject(app, 'Busy'), await createProject(app, 'Quiet')];
    const { answers } = await burst(app, busy, 6);
    expect(statuses(answers)).toContain(429);
    const other = await http(app).get(LIST).set(quiet.headers);
    expect(other.status).toBe(200);
    expect(other.headers['x-rate-limit-remaining']).toBe('1');
  });

  it('is shared by every API process: two APIs on the same Redis count against one bucket', async () => {
    const [one, two] = [await slow(), await slow()];
    const project = await createProject(one);
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => http(i % 2 ? one : two).get(LIST).set(project.headers)),
    );
    // A limiter per process would accept 2 in each of them: 4.
    expect(accepted(answers)).toBeLessThanOrEqual(2 + Math.floor((Date.now() - started) / 1000));
  });

  it('public routes are neither counted nor labelled', async () => {
    const app = await slow();
    const project = await createProject(app);
    // Sent with the project's keys: a public route still has no project to charge.
    const answers = await Promise.all(Array.from({ length: 6 }, () => http(app).get('/health').set(project.headers)));
    expect(statuses(answers)).toEqual(Array(6).fill(200));
    for (const name of HEADERS) expect(answers[0].headers[name]).toBeUndefined();
    // The project's bucket is still full: its first keyed request leaves one of two.
    expect((await http(app).get(LIST).set(project.headers)).headers['x-rate-limit-remaining']).toBe('1');
  });

  it('RATE_LIMIT_PER_SECOND=0 turns the limiter off', async () => {
    const app = await slow({ RATE_LIMIT_PER_SECOND: '0' });
    const project = await createProject(app);
    const { answers } = await burst(app, project, 10);
    expect(statuses(answers)).toEqual(Array(10).fill(200));
    for (const name of HEADERS) expect(answers[0].headers[name]).toBeUndefined();
  });

  /** The commands this API's limiter sent to Redis while `run` ran, each as its name (lower case) and arguments. */
  async function limiterCommands(run: () => Promise<void>, expectedAtLeast: number): Promise<string[][]> {
    const redis = new Redis(testConfig().redisUrl);
    // The limiters' connections (the other tests' APIs are idle): the only commands expected from them
    // are this API's.
    const clients = ((await redis.client('LIST')) as string).split('\n');
    const limiters = new Set(clients.filter((line) => line.includes(` name=${testConfig().queuePrefix}:rate-limit `)).map((line) => /addr=(\S+)/.exec(line)![1]));
    expect(limiters.size).toBeGreaterThan(0);
    // MONITOR on a plain socket: ioredis's monitor() raced its own reply under load ("Command queue state
    // error"). Each line is `+<time> [<db> <client address>] "<command>" …`.
    const url = new URL(testConfig().redisUrl);
    const monitor = connect(Number(url.port || 6379), url.hostname);
    const commands: string[][] = [];
    let pending = '';
    monitor.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString('latin1')).split('\r\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const seen = /^\+\S+ \[\d+ (\S+)\] (.*)$/.exec(line);
        if (seen && limiters.has(seen[1])) {
          const [name, ...args] = [...seen[2].matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((part) => part[1]);
          commands.push([name.toLowerCase(), ...args]);
        }
      }
    });
    await new Promise<void>((resolve, reject) => monitor.once('connect', resolve).once('error', reject));
    if (url.password) monitor.write(`AUTH ${decodeURIComponent(url.username || 'default')} ${decodeURIComponent(url.password)}\r\n`);
    monitor.write('MONITOR\r\n');
    await waitFor(async () => ((await redis.client('LIST')) as string).includes('cmd=monitor') ? true : undefined, { timeoutMs: 5_000 });
    try {
      await run();
      await waitFor(async () => (commands.length >= expectedAtLeast ? true : undefined), { timeoutMs: 5_000 });
      // Let late commands arrive, so that a count above the expected one is seen.
      await new Promise((resolve) => setTimeout(resolve, 200));
      return commands;
    } finally {
      monitor.destroy();
      redis.disconnect();
    }
  }

  it('costs one Redis command per request (one script run) below 40 requests a second per project', async () => {
    const app = await startApi(testConfig({ RATE_LIMIT_PER_SECOND: '39' }));
    apps.push(app);
    const project = await createProject(app);
    const commands = await limiterCommands(async () => {
      for (let i = 0; i < 20; i++) expect((await http(app).get(LIST).set(project.headers)).status).toBe(200);
    }, 20);
    // EVAL the first time this connection runs the script, EVALSHA after.
    expect(commands).toHaveLength(20);
    expect(commands.every(([name]) => name === 'evalsha' || name === 'eval')).toBe(true);
  });

  it('a busy project takes its tokens from Redis several at a time, and never more than the bucket holds', async () => {
    // 100 a second, bursts of 200: 400 requests, 16 at a time, from a full bucket.
    const app = await startApi(testConfig({ RATE_LIMIT_PER_SECOND: '100' }));
    apps.push(app);
    const project = await createProject(app);
    const answers: Response[] = [];
    const started = Date.now();
    const commands = await limiterCommands(async () => {
      for (let i = 0; i < 400; i += 16) answers.push(...(await Promise.all(Array.from({ length: 16 }, () => http(app).get(LIST).set(project.headers)))));
    }, 1);
    const seconds = (Date.now() - started) / 1000;
    // Never more than the bucket and its refill; at most one lease (5 tokens at 100 a second) dropped.
    expect(accepted(answers)).toBeLessThanOrEqual(200 + Math.ceil(100 * seconds) + 1);
    expect(accepted(answers)).toBeGreaterThanOrEqual(195);
    expect(statuses(answers).every((status) => status === 200 || status === 429)).toBe(true);
    // Several tokens at a time: takes of more than one (the script's last argument; at most 5 at 100 a second),
    // so fewer round trips than requests. How many fewer depends on how the requests fall into the 100 ms
    // windows the lease is sized on, i.e. on the machine's speed (on a slow sitting 307 of 400, otherwise
    // under 300): only the direction is asserted.
    const wanted = commands.map((command) => Number(command.at(-1)));
    expect(wanted.every((n) => n >= 1 && n <= 5)).toBe(true);
    expect(wanted.filter((n) => n > 1).length).toBeGreaterThanOrEqual(5);
    expect(commands.length).toBeLessThan(answers.length);
    const remaining = answers.filter((answer) => answer.status === 200).map((answer) => Number(answer.headers['x-rate-limit-remaining']));
    expect(Math.max(...remaining)).toBeLessThanOrEqual(200);
  });

  it('lets requests through uncounted while Redis is unreachable, and counts again once it is back', async () => {
    const redisUrl = new URL(testConfig().redisUrl);
    const proxy = new TcpProxy(redisUrl.hostname, Number(redisUrl.port || 6379));
    redisUrl.port = String(await proxy.start());
    // Closed here, with Redis reachable again: see the finally block.
    const app = await startApi(testConfig({ RATE_LIMIT_PER_SECOND: '1', REDIS_URL: redisUrl.toString() }));
    let cut = false;
    try {
      const project = await createProject(app);
      expect(statuses((await burst(app, project, 6)).answers)).toContain(429);

      await proxy.cut();
      cut = true;
      const started = Date.now();
      const { answers } = await burst(app, project, 6);
      expect(statuses(answers)).toEqual(Array(6).fill(200));
      for (const name of HEADERS) expect(answers[0].headers[name]).toBeUndefined();
      // Not held back by a command timeout or a reconnection.
      expect(Date.now() - started).toBeLessThan(1_000);

      await proxy.restore();
      cut = false;
      await waitFor(async () => ((await http(app).get(LIST).set(project.headers)).headers['x-rate-limit-limit'] === '2' ? true : undefined));
    } finally {
      if (cut) await proxy.restore();
      // The queues' clients reconnect on their own schedule; one closed while still reconnecting would
      // go on reconnecting in this process (and keep jest from exiting).
      await waitFor(async () => ((await http(app).get('/health/ready')).body.checks?.redis === 'up' ? true : undefined)).catch(() => undefined);
      await app.close();
      await proxy.cut();
    }
  });

  it("the official SDK's apiLimitsHandler reads the limit and what remains", async () => {
    const app = await startApi(testConfig({ RATE_LIMIT_PER_SECOND: '50' }));
    apps.push(app);
    await app.listen(0, '127.0.0.1');
    const project = await createProject(app);
    const apiUrl = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    const client = voucherify.VoucherifyServerSide({ applicationId: project.app_id, secretKey: project.app_token, apiUrl });
    await client.loyalties.list({ limit: 1 });
    expect(client.apiLimitsHandler.areLimitsAvailable()).toBe(true);
    expect(client.apiLimitsHandler.getRateLimit()).toBe(100);
    expect(client.apiLimitsHandler.getRateLimitRemaining()).toBe(99);
  });
});
