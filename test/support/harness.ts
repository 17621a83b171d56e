import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { createApiApp } from '../../src/app/http-app.js';
import { WorkerModule } from '../../src/app/worker.module.js';
import { AuthService, type CreatedProject } from '../../src/auth/auth.service.js';
import { type AppConfig, loadConfig } from '../../src/config/app-config.js';

/** The run's configuration (database and queue prefix from global-setup), with per-test overrides. */
export function testConfig(overrides: Record<string, string> = {}): AppConfig {
  return loadConfig(overrides);
}

export async function startApi(config = testConfig()): Promise<NestExpressApplication> {
  return createApiApp(config);
}

/** A real BullMQ worker (the worker process's module) running in the test process. */
export async function startWorker(config = testConfig()): Promise<INestApplicationContext> {
  const worker = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), { logger: false });
  await worker.init();
  return worker;
}

export interface TestProject extends CreatedProject {
  headers: { 'X-App-Id': string; 'X-App-Token': string };
}

export async function createProject(app: INestApplicationContext, name = 'Test project'): Promise<TestProject> {
  const created = await app.get(AuthService).createProject(name);
  return { ...created, headers: { 'X-App-Id': created.app_id, 'X-App-Token': created.app_token } };
}

export function http(app: NestExpressApplication) {
  return request(app.getHttpServer());
}

export async function waitFor<T>(probe: () => Promise<T | undefined>, { timeoutMs = 15_000, intervalMs = 50 } = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * A port for a child process to listen on. Not the kernel's `listen(0)`: a port it hands out lies in the
 * ephemeral range, where another test's supertest server or any outgoing connection can take it between our
 * close and the child's listen (CI, 2026-11-29: the launcher's health poll reached another test's Nest app on
 * "its" port, which then closed). Each jest worker takes ports from its own slice below that range instead.
 */
const PORT_FLOOR = 12_000;
const PORT_SLICE = 2_000;
let portCursor = Math.floor(Math.random() * PORT_SLICE);

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  const slice = PORT_FLOOR + (Number(process.env.JEST_WORKER_ID ?? 0) % 10) * PORT_SLICE;
  for (let tries = 0; tries < PORT_SLICE; tries++) {
    const port = slice + (portCursor++ % PORT_SLICE);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port in ${slice}..${slice + PORT_SLICE - 1}`);
}

export const REQUEST_ID = /^v-[0-9a-f]{18}$/;

/** POST /v1/loyalties with `body`, then waits until the campaign's card generation (if any) is DONE. */
export async function createFinishedCampaign<T>(app: NestExpressApplication, who: TestProject, body: object): Promise<T> {
  const res = await http(app).post('/v1/loyalties').set(who.headers).send(body);
  if (res.status !== 200) throw new Error(`POST /v1/loyalties answered ${res.status}: ${JSON.stringify(res.body)}`);
  return waitFor(async () => {
    const got = await http(app).get(`/v1/loyalties/${res.body.id}`).set(who.headers);
    return got.body.vouchers_generation_status === 'DONE' ? (got.body as T) : undefined;
  });
}

/**
 * A real worker process (`node dist/worker.js`) on the run's database and queues, with `env` on top of the
 * test process's environment; resolves once it logged that it is ready. Added to `workers` until it exits.
 */
export async function startWorkerProcess(env: Record<string, string | undefined>, workers: Set<ChildProcess>): Promise<ChildProcess> {
  const config = testConfig();
  const root = new URL('../../', import.meta.url).pathname;
  const worker = spawn(process.execPath, ['dist/worker.js'], { cwd: root, env: { ...process.env, ...env, DATABASE_URL: config.databaseUrl, QUEUE_PREFIX: config.queuePrefix }, stdio: ['ignore', 'pipe', 'pipe'] });
  workers.add(worker);
  worker.on('exit', () => workers.delete(worker));
  let output = '';
  worker.stdout?.on('data', (chunk) => (output += chunk));
  worker.stderr?.on('data', (chunk) => (output += chunk));
  // A start takes a few seconds; on a loaded machine (parallel test files) it took over 20.
  await waitFor(async () => (output.includes('Worker ready') ? true : undefined), { timeoutMs: 60_000, intervalMs: 100 });
  return worker;
}
