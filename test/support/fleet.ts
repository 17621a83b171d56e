import { execFileSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import pg from 'pg';
import { Child } from './child.js';
import { freePort, waitFor } from './harness.js';
import { unique } from './points.js';

/** The servers a deployment puts around the service (docs/scaling.md), from Debian's packages. */
export const BINARIES = { pgbouncer: '/usr/sbin/pgbouncer', redis: '/usr/bin/redis-server', sentinel: '/usr/bin/redis-sentinel', haproxy: '/usr/sbin/haproxy' };

/** A user for PgBouncer to run as when the tests run as root (it refuses root): PostgreSQL's, else nobody. */
function unixUser(): string {
  try {
    execFileSync('id', ['postgres'], { stdio: 'ignore' });
    return 'postgres';
  } catch {
    return 'nobody';
  }
}

/** PgBouncer in transaction mode in front of `direct`'s server, without ignore_startup_parameters, as docs/scaling.md configures it. */
export async function startPgBouncer(dir: string, direct: URL, serverPool: number, children: Child[]) {
  const port = await freePort();
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, 'users.txt'), '"postgres" ""\n');
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${direct.hostname} port=${direct.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'admin_users = postgres',
      'pool_mode = transaction',
      `default_pool_size = ${serverPool}`,
      'max_client_conn = 500',
      ...(process.getuid?.() === 0 ? [`user = ${unixUser()}`] : []),
      '',
    ].join('\n'),
  );
  const bouncer = new Child(BINARIES.pgbouncer, [join(dir, 'pgbouncer.ini')]);
  children.push(bouncer);
  const database = decodeURIComponent(direct.pathname.slice(1));
  /** The server connections PgBouncer holds for the database, from its admin console. */
  const serverConnections = async (): Promise<number> => {
    const console = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/pgbouncer` });
    await console.connect();
    try {
      const { rows } = await console.query<Record<string, string>>('SHOW POOLS');
      return rows.filter((row) => row.database === database).reduce((n, row) => n + ['sv_active', 'sv_idle', 'sv_used', 'sv_tested', 'sv_login'].reduce((s, c) => s + Number(row[c] ?? 0), 0), 0);
    } finally {
      await console.end();
    }
  };
  await waitFor(async () => {
    if (!bouncer.alive) throw new Error(`pgbouncer exited: ${bouncer.output}`);
    return (await serverConnections().catch(() => null)) !== null ? true : undefined;
  }, { timeoutMs: 10_000, intervalMs: 100 });
  const pooled = new URL(direct);
  pooled.port = String(port);
  return { url: pooled.toString(), serverConnections };
}

/** Asks one Redis or sentinel port a command on a connection of its own. */
export async function askRedis<T>(port: number, ...args: (string | number)[]): Promise<T> {
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.call(String(args[0]), ...args.slice(1).map(String))) as T;
  } finally {
    client.disconnect();
  }
}

/** A Redis master, two replicas and three sentinels watching them as `name`, on free ports; resolves once a failover could be made. */
export async function startSentinelRedis(dir: string, name: string, children: Child[]) {
  const servers = new Map<number, Child>();
  const sentinels: number[] = [];
  const startRedis = async (port: number, replicaOf?: number) => {
    const child = new Child(BINARIES.redis, ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--dbfilename', `dump-${port}.rdb`, ...(replicaOf ? ['--replicaof', '127.0.0.1', String(replicaOf)] : [])]);
    servers.set(port, child);
    children.push(child);
    await child.waitFor('Ready to accept connections', 10_000);
  };
  // Two replicas: after a failover the sentinels point the other replica at the new master at once, while the
  // demoted master is turned into a replica only after it reported itself master for several INFO periods (about
  // 14 s measured), so a second failover can follow the first without waiting for that.
  const [master, ...replicas] = [await freePort(), await freePort(), await freePort()];
  await startRedis(master);
  for (const replica of replicas) await startRedis(replica, master);
  for (let i = 0; i < 3; i++) {
    const port = await freePort();
    sentinels.push(port);
    const file = join(dir, `sentinel-${port}.conf`);
    writeFileSync(file, [`port ${port}`, 'bind 127.0.0.1', `dir ${dir}`, `sentinel monitor ${name} 127.0.0.1 ${master} 2`, `sentinel down-after-milliseconds ${name} 1000`, `sentinel failover-timeout ${name} 4000`, `sentinel parallel-syncs ${name} 1`, ''].join('\n'));
    children.push(new Child(BINARIES.sentinel, [file]));
  }
  /** The master's port as every sentinel sees it (undefined while they disagree). */
  const masterPort = async (): Promise<number | undefined> => {
    const seen = await Promise.all(sentinels.map((port) => askRedis<[string, string]>(port, 'SENTINEL', 'get-master-addr-by-name', name).catch(() => null)));
    const ports = new Set(seen.map((address) => (address ? Number(address[1]) : 0)));
    return ports.size === 1 && !ports.has(0) ? [...ports][0] : undefined;
  };
  /** The replica at `port` says so itself: it follows `master` and its link is up (a sentinel learns it by INFO only every 10 s). */
  const linkUp = async (port: number, master: number): Promise<boolean> => {
    const info = await askRedis<string>(port, 'INFO', 'replication').catch(() => '');
    return /^role:slave$/m.test(info) && new RegExp(`^master_port:${master}$`, 'm').test(info) && /^master_link_status:up$/m.test(info);
  };
  /** Every sentinel knows the two other sentinels and a replica that is not down, following the master they agree on, its link up. */
  const settled = async (): Promise<boolean> => {
    const current = await masterPort();
    if (current === undefined) return false;
    for (const port of sentinels) {
      const replicas = await askRedis<string[][]>(port, 'SENTINEL', 'replicas', name).catch(() => []);
      const others = await askRedis<string[][]>(port, 'SENTINEL', 'sentinels', name).catch(() => []);
      const live = replicas
        .map((fields) => Object.fromEntries(fields.flatMap((_, i) => (i % 2 === 0 ? [[fields[i], fields[i + 1]]] : []))))
        .filter((info) => !/down|disconnected/.test(String(info.flags)));
      if (others.length < 2 || !(await Promise.all(live.map((info) => linkUp(Number(info.port), current)))).includes(true)) return false;
    }
    return true;
  };
  await waitFor(async () => ((await settled()) ? true : undefined), { timeoutMs: 30_000, intervalMs: 200 });
  /** A failover through the sentinels; resolves with the new master's port once all of them agree on it. */
  const failover = async (): Promise<number> => {
    const before = await masterPort();
    await askRedis(sentinels[0], 'SENTINEL', 'failover', name);
    return waitFor(async () => {
      const now = await masterPort();
      return now !== undefined && now !== before ? now : undefined;
    }, { timeoutMs: 20_000, intervalMs: 100 });
  };
  return { sentinels: sentinels.map((port) => `127.0.0.1:${port}`).join(','), servers, masterPort, settled, failover };
}

/** haproxy over the given API ports, checking `/health/ready` every 300 ms; resolves with its front address once it answers. */
export async function startHaproxy(dir: string, apiPorts: number[], children: Child[]): Promise<string> {
  const port = await freePort();
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(
    file,
    [
      'global',
      '  maxconn 2000',
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 30s',
      '  timeout server 30s',
      '  timeout http-keep-alive 30s',
      '  option http-keep-alive',
      '  http-reuse always',
      'frontend api',
      `  bind 127.0.0.1:${port}`,
      '  default_backend apis',
      'backend apis',
      '  balance roundrobin',
      '  option httpchk GET /health/ready',
      '  http-check expect status 200',
      // A check waits up to 2 s for its answer (by default it waits only `inter`): on a busy machine a ready API
      // answering in 400 ms must not be taken out; one that is stopping answers 503 at once and still goes.
      '  timeout check 2s',
      '  default-server inter 300ms fall 2 rise 2',
      ...apiPorts.map((api, i) => `  server api${i} 127.0.0.1:${api} check`),
      '',
    ].join('\n'),
  );
  children.push(new Child(BINARIES.haproxy, ['-f', file, '-db']));
  const front = `http://127.0.0.1:${port}`;
  await waitFor(async () => ((await fetch(`${front}/health/ready`).catch(() => null))?.status === 200 ? true : undefined), { timeoutMs: 15_000, intervalMs: 100 });
  return front;
}

/**
 * `connections` kept-alive requests to `url` at once, `rounds` times, the connections left idle 6 s between
 * rounds (past Node's old 5 s keep-alive); the statuses answered (0 for a connection reset).
 */
export async function idleKeepAliveStatuses(url: URL, connections: number, rounds: number): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const get = () =>
    new Promise<number>((resolve) => {
      const req = request({ host: url.hostname, port: url.port, path: url.pathname, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', () => resolve(0));
      req.end();
    });
  const statuses: number[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      statuses.push(...(await Promise.all(Array.from({ length: connections }, get))));
      // The idle period longer than Node's default keep-alive is the point: a fixed wait, on purpose.
      if (round < rounds - 1) await sleep(6_000);
    }
  } finally {
    agent.destroy();
  }
  return statuses;
}

/** An answer of `keyedCalls`: the status, the headers and the JSON body (or `{ text }` when it is not JSON). */
export interface KeyedAnswer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/**
 * Requests with one application key to whichever API `base()` names when each is sent (a balancer, or one API
 * of several): `call` answers whatever the status, `ok` throws unless it is 200.
 */
export function keyedCalls(appId: string, appToken: string, base: () => string) {
  const call = async (method: string, path: string, body?: unknown): Promise<KeyedAnswer> => {
    const res = await fetch(`${base()}${path}`, {
      method,
      headers: { 'X-App-Id': appId, 'X-App-Token': appToken, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: /^[{[]/.test(text) ? (JSON.parse(text) as Record<string, unknown>) : { text } };
  };
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await call(method, path, body);
    if (res.status !== 200) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  return { call, ok };
}

/**
 * Through the API (`ok` of `keyedCalls`): a loyalty campaign once its cards are made, its earning rules, and
 * `members` customers enrolled as its members; resolves with the campaign, the customers' source ids and
 * their cards' codes.
 */
export async function programWithMembers(ok: ReturnType<typeof keyedCalls>['ok'], name: string, rules: unknown[], members: number) {
  const campaign = await ok('POST', '/v1/loyalties', { name: unique(`${name} campaign`) });
  await waitFor(async () => ((await ok('GET', `/v1/loyalties/${String(campaign.id)}`)).vouchers_generation_status === 'DONE' ? true : undefined), { timeoutMs: 20_000 });
  await ok('POST', `/v1/loyalties/${String(campaign.id)}/earning-rules`, rules);
  const customers = Array.from({ length: members }, (_, i) => unique(`${name.toLowerCase()}-customer-${i}`));
  const codes: string[] = [];
  for (const customer of customers) {
    const member = await ok('POST', `/v2/loyalties/programs/${String(campaign.program_id)}/members`, { customer_identification: { type: 'customer_source_id', customer_source_id: customer } });
    codes.push((member.cards as { card: { code: string } }[])[0].card.code);
  }
  return { campaign, customers, codes };
}
