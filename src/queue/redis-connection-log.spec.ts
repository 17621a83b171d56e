import { jest } from '@jest/globals';
import { EventEmitter } from 'node:events';
import { Logger } from '@nestjs/common';
import { RedisConnectionLog } from './redis-connection-log.js';

/** A BullMQ Queue or Worker as the log sees it: an emitter with a Redis client behind it. */
function fakeQueue(name: string) {
  const client = Object.assign(new EventEmitter(), { status: 'ready' });
  const queue = Object.assign(new EventEmitter(), { name, getBackend: () => ({ client: Promise.resolve(client) }) });
  return { queue, client };
}

describe('RedisConnectionLog', () => {
  let lines: { level: string; message: string; fields: unknown }[];
  beforeEach(() => {
    lines = [];
    for (const level of ['log', 'warn', 'error'] as const) {
      jest.spyOn(Logger.prototype, level).mockImplementation(function (this: Logger, fields: unknown, message?: unknown) {
        lines.push({ level, message: String(message), fields });
      });
    }
  });
  afterEach(() => jest.restoreAllMocks());

  it('logs an outage once and its end once, however many clients drop and errors repeat, then calls back', async () => {
    const log = new RedisConnectionLog();
    const a = fakeQueue('campaigns');
    const b = fakeQueue('pending-points');
    await log.watch('queue', a.queue);
    await log.watch('worker', b.queue);
    let restored = 0;
    log.onRestored(() => (restored += 1));

    for (const client of [a.client, b.client]) client.emit('close');
    for (let i = 0; i < 50; i += 1) a.queue.emit('error', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' }));
    b.queue.emit('error', new Error('Connection is closed.'));
    a.client.emit('ready');
    expect(restored).toBe(0);
    b.client.emit('ready');

    expect(lines.map((line) => [line.level, line.message])).toEqual([
      ['warn', 'redis connection lost'],
      ['log', 'redis connection restored'],
    ]);
    expect(lines[1].fields).toMatchObject({ reconnect_errors: 51, first_error: 'queue:campaigns: connect ECONNREFUSED 127.0.0.1:6379' });
    expect(restored).toBe(1);
  });

  it('logs other errors as they come, as structured fields', async () => {
    const log = new RedisConnectionLog();
    const { queue } = fakeQueue('campaigns');
    await log.watch('queue', queue);
    queue.emit('error', new Error('Missing lock for job 12'));
    expect(lines).toEqual([{ level: 'error', message: 'queue error', fields: expect.objectContaining({ component: 'queue:campaigns', err: expect.objectContaining({ message: 'Missing lock for job 12' }) }) }]);
  });

  it('hears of an outage from connection errors alone when the client was not yet reachable, and of its end once it is', async () => {
    const log = new RedisConnectionLog();
    // The client promise of a queue whose connection dropped before it was ever ready (just after start).
    const client = Object.assign(new EventEmitter(), { status: 'reconnecting' });
    let resolveClient: (value: unknown) => void = () => undefined;
    const queue = Object.assign(new EventEmitter(), { name: 'webhooks', getBackend: () => ({ client: new Promise((resolve) => (resolveClient = resolve)) }) });
    const watching = log.watch('worker', queue);

    queue.emit('error', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' }));
    expect(lines.map((line) => line.message)).toEqual(['redis connection lost']);
    expect(log.isDown).toBe(true);

    client.status = 'ready';
    resolveClient(client);
    await watching;
    expect(lines.map((line) => line.message)).toEqual(['redis connection lost', 'redis connection restored']);
    expect(log.isDown).toBe(false);
  });
});
