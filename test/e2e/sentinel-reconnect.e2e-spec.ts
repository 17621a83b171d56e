import { createServer, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { createRedisClient, type RedisClient } from '../../src/common/redis/redis-client.js';
import { testConfig, waitFor } from '../support/harness.js';

/**
 * A sentinel that names the local Redis as the master, speaking just enough of RESP for ioredis: it can hold its
 * answers to "where is the master?" and publish +switch-master to its subscribers when a test says so.
 */
class FakeSentinel {
  private readonly server: Server;
  private readonly subscribers = new Set<Socket>();
  private readonly sockets = new Set<Socket>();
  private held: (() => void)[] | null = null;
  masterQueries = 0;
  port = 0;

  constructor(private readonly master: { host: string; port: number }) {
    this.server = createServer((socket) => {
      let buffer = '';
      this.sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        this.subscribers.delete(socket);
        this.sockets.delete(socket);
      });
      socket.on('data', (chunk) => {
        buffer += chunk.toString('latin1');
        for (let command = takeCommand(buffer); command; command = takeCommand(buffer)) {
          buffer = buffer.slice(command.length);
          this.answer(socket, command.args);
        }
      });
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  /** From now on, answers to "where is the master?" wait for `release`. */
  hold(): void {
    this.held = [];
  }

  release(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const send of held) send();
  }

  get heldCount(): number {
    return this.held?.length ?? 0;
  }

  publishSwitchMaster(): void {
    const payload = `mymaster 127.0.0.1 1 ${this.master.host} ${this.master.port}`;
    for (const socket of this.subscribers) socket.write(array(['message', '+switch-master', payload]));
  }

  private answer(socket: Socket, args: string[]): void {
    const [name, sub] = [args[0]?.toLowerCase(), args[1]?.toLowerCase()];
    if (name === 'sentinel' && sub === 'get-master-addr-by-name') {
      this.masterQueries += 1;
      const send = () => socket.write(array([this.master.host, String(this.master.port)]));
      if (this.held) this.held.push(send);
      else send();
    } else if (name === 'sentinel' && sub === 'sentinels') {
      socket.write('*0\r\n');
    } else if (name === 'subscribe') {
      this.subscribers.add(socket);
      socket.write(`*3\r\n${bulk('subscribe')}${bulk(args[1])}:1\r\n`);
    } else {
      socket.write('+OK\r\n');
    }
  }
}

const bulk = (value: string) => `$${Buffer.byteLength(value, 'latin1')}\r\n${value}\r\n`;
const array = (values: string[]) => `*${values.length}\r\n${values.map(bulk).join('')}`;

/** One whole RESP command (an array of bulk strings) at the start of `buffer`, or null while it is incomplete. */
function takeCommand(buffer: string): { args: string[]; length: number } | null {
  const header = /^\*(\d+)\r\n/.exec(buffer);
  if (!header) return null;
  let at = header[0].length;
  const args: string[] = [];
  for (let i = 0; i < Number(header[1]); i += 1) {
    const size = /^\$(\d+)\r\n/.exec(buffer.slice(at));
    if (!size) return null;
    const start = at + size[0].length;
    const end = start + Number(size[1]);
    if (buffer.length < end + 2) return null;
    args.push(buffer.slice(start, end));
    at = end + 2;
  }
  return { args, length: at };
}

/**
 * The Sentinel client's reconnect at a failover (src/common/redis/redis-client.ts, FailoverSafeSentinelConnector).
 * At a failover the old master drops its clients, and the sentinels publish +switch-master: when that message
 * reaches the previous connection's failover detector while the client is asking the sentinels where the master
 * is, ioredis alone leaves the client closed for good ("Connection is closed." on every command). The fake sentinel
 * holds its answer to make that moment certain, instead of hoping for it as a real failover does.
 */
describe('a Redis client through Sentinel, at a failover', () => {
  const redisUrl = new URL(testConfig().redisUrl);
  const master = { host: redisUrl.hostname, port: Number(redisUrl.port || 6379) };
  const sentinel = new FakeSentinel(master);
  const admin = new Redis(redisUrl.toString(), { lazyConnect: true });
  let client: RedisClient | undefined;

  beforeAll(async () => {
    await sentinel.start();
    await admin.connect();
  });

  afterAll(async () => {
    // disconnect, not quit: ioredis's quit leaves the failover detector's subscriptions open (and reconnecting).
    client?.disconnect();
    await admin.quit();
    await sentinel.stop();
  });

  it('reconnects when +switch-master arrives while it is asking the sentinels for the new master', async () => {
    const name = `sentinel-reconnect-${process.pid}-${Date.now()}`;
    const topology = { kind: 'sentinel' as const, url: redisUrl.toString(), sentinels: [{ host: '127.0.0.1', port: sentinel.port }], name: 'mymaster', sentinelPassword: null };
    const redis = createRedisClient(topology, { failFast: false, name });
    client = redis;
    redis.on('error', () => undefined);
    expect(await redis.ping()).toBe('PONG');
    // The connection's failover detector subscribes once the connection is up.
    await waitFor(async () => (sentinel.subscriberCount === 1 ? true : undefined), { timeoutMs: 5_000, intervalMs: 20 });

    sentinel.hold();
    const asked = sentinel.masterQueries;
    // The old master drops the client, as Redis does to its clients when a failover demotes it.
    const clients = String(await admin.call('CLIENT', 'LIST'));
    const id = /id=(\d+) [^\n]*name=([^ ]+)/g;
    const ids = [...clients.matchAll(id)].filter((m) => m[2] === name).map((m) => m[1]);
    expect(ids).toHaveLength(1);
    await admin.call('CLIENT', 'KILL', 'ID', ids[0]);
    // The client reconnects: it asks the sentinel where the master is, and waits for the answer.
    await waitFor(async () => (sentinel.masterQueries > asked && sentinel.heldCount > 0 ? true : undefined), { timeoutMs: 5_000, intervalMs: 10 });
    // The failover's announcement arrives meanwhile, to whoever still listens from before.
    sentinel.publishSwitchMaster();
    // A detector that heard it disconnects its subscriptions (and, with ioredis alone, the connect in progress).
    await waitFor(async () => (sentinel.subscriberCount === 0 ? true : undefined), { timeoutMs: 5_000, intervalMs: 10 });
    sentinel.release();

    await waitFor(async () => ((await redis.ping().catch(() => undefined)) === 'PONG' ? true : undefined), { timeoutMs: 5_000, intervalMs: 50 }).catch((error: Error) => {
      throw new Error(`${error.message}: the client is ${(redis as Redis).status}`);
    });
    expect((redis as Redis).status).toBe('ready');
  });
});
