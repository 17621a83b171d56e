import type { AddressInfo } from 'node:net';
import type { INestApplicationContext } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import pg from 'pg';
import type { AppConfig } from '../../src/config/app-config.js';
import { type TestProject, createProject, http, startApi, startWorker, testConfig } from './harness.js';
import { PointsDb } from './points.js';
import { Receiver } from './receiver.js';

export interface StackOptions {
  /** Overrides of the run's configuration, for the API and the worker alike. */
  config?: Record<string, string>;
  /** Start a BullMQ worker (the worker process's module) in the test process. */
  worker?: boolean;
  /** Projects to create, by name (`a`, `b`, then `projects`), or how many ("Test project" each). */
  projects?: number | string[];
  /** Open a plain pg client on the run's database (`pg`). */
  pg?: boolean;
  /** Open a {@link PointsDb} on the run's database (`db`). */
  pointsDb?: boolean;
  /** Start a webhook {@link Receiver} before the API (stopped after it). */
  receiver?: boolean;
  /** Listen on 127.0.0.1 at a free port (`baseUrl`). */
  listen?: boolean;
  /** Runs first in the teardown, while everything is still up: the suite's own checks and cleanups. */
  beforeClose?: (stack: Stack) => Promise<void> | void;
}

export interface Stack {
  readonly config: AppConfig;
  readonly app: NestExpressApplication;
  /** The in-process worker; throws when none runs (see `startWorker`/`stopWorker`). */
  readonly worker: INestApplicationContext;
  readonly a: TestProject;
  readonly b: TestProject;
  readonly projects: TestProject[];
  readonly pg: pg.Client;
  readonly db: PointsDb;
  readonly receiver: Receiver;
  readonly baseUrl: string;
  /** supertest on the API. */
  http(): ReturnType<typeof http>;
  /** Starts a worker (stopping the running one first), with the stack's configuration unless given another. */
  startWorker(config?: AppConfig): Promise<INestApplicationContext>;
  /** Closes the running worker, if any. */
  stopWorker(): Promise<void>;
}

/**
 * The e2e start-up most suites share, registered as the describe block's beforeAll/afterAll: an optional
 * receiver, the API (listening if asked), a worker, projects and database clients. The returned object is
 * filled by the beforeAll; reading a part before it ran (or one not asked for) throws.
 *
 * Teardown order: `beforeClose`, the database clients, the worker, the API, the receiver (a worker closes
 * before the API whose queues it shares; the receiver outlives the attempts in flight).
 */
export function useStack(options: StackOptions = {}): Stack {
  const config = testConfig(options.config);
  const pgClient = options.pg ? new pg.Client({ connectionString: config.databaseUrl }) : undefined;
  const pointsDb = options.pointsDb ? new PointsDb() : undefined;
  const receiver = options.receiver ? new Receiver() : undefined;
  let app: NestExpressApplication | undefined;
  let worker: INestApplicationContext | null = null;
  let projects: TestProject[] = [];
  let baseUrl: string | undefined;

  const need = <T>(value: T | undefined | null, what: string): T => {
    if (value === undefined || value === null) throw new Error(`useStack: ${what} is not there (not asked for, not started yet, or stopped)`);
    return value;
  };

  const stack: Stack = {
    config,
    get app() {
      return need(app, 'the API');
    },
    get worker() {
      return need(worker, 'the worker');
    },
    get a() {
      return need(projects[0], 'project a');
    },
    get b() {
      return need(projects[1], 'project b');
    },
    get projects() {
      return projects;
    },
    get pg() {
      return need(pgClient, 'the pg client (pg: true)');
    },
    get db() {
      return need(pointsDb, 'the PointsDb (pointsDb: true)');
    },
    get receiver() {
      return need(receiver, 'the receiver (receiver: true)');
    },
    get baseUrl() {
      return need(baseUrl, 'the base URL (listen: true)');
    },
    http: () => http(stack.app),
    async startWorker(workerConfig = config) {
      await stack.stopWorker();
      worker = await startWorker(workerConfig);
      return worker;
    },
    async stopWorker() {
      const running = worker;
      worker = null;
      await running?.close();
    },
  };

  beforeAll(async () => {
    await receiver?.start();
    app = await startApi(config);
    if (options.listen) {
      await app.listen(0, '127.0.0.1');
      baseUrl = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    }
    if (options.worker) worker = await startWorker(config);
    const names = typeof options.projects === 'number' ? Array.from({ length: options.projects }, () => undefined) : (options.projects ?? []);
    for (const name of names) projects.push(await createProject(app, name));
    await pgClient?.connect();
    await pointsDb?.connect();
  });

  afterAll(async () => {
    try {
      await options.beforeClose?.(stack);
    } finally {
      await pgClient?.end();
      await pointsDb?.end();
      await stack.stopWorker();
      await app?.close();
      await receiver?.stop();
      projects = [];
    }
  });

  return stack;
}
