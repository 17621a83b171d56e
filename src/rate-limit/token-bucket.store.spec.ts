import { jest } from '@jest/globals';
import { loadConfig } from '../config/app-config.js';
import { TokenBucketStore } from './token-bucket.store.js';

/** The store's client, as the reconnection touches it. */
interface Client {
  status: string;
  connect(): Promise<void>;
  disconnect(reconnect?: boolean): void;
}

describe('TokenBucketStore: a client that keeps failing is made to connect afresh', () => {
  // A port nothing listens on, and a client whose connection ended: every take fails at once (no offline queue).
  const store = new TokenBucketStore(loadConfig({ REDIS_URL: 'redis://127.0.0.1:1' }));
  const client = (store as unknown as { redis: Client }).redis;
  let now = 1_000_000;

  beforeEach(() => {
    jest.spyOn(Date, 'now').mockImplementation(() => now);
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await store.onModuleDestroy();
  });

  it('not before 5 s of failures, then at most every 5 s', async () => {
    const connect = jest.spyOn(client, 'connect').mockResolvedValue(undefined);
    const disconnect = jest.spyOn(client, 'disconnect').mockImplementation(() => undefined);
    const take = () => store.take('k', 10, 1_000, 1).catch(() => 'failed');
    Object.defineProperty(client, 'status', { value: 'end', configurable: true });

    expect(await take()).toBe('failed');
    now += 4_999;
    expect(await take()).toBe('failed');
    expect(connect).not.toHaveBeenCalled();

    now += 1;
    expect(await take()).toBe('failed');
    expect(connect).toHaveBeenCalledTimes(1);

    now += 4_999;
    expect(await take()).toBe('failed');
    expect(connect).toHaveBeenCalledTimes(1);

    // A client that is not waiting to connect (connected, or reconnecting) is disconnected and reconnects.
    Object.defineProperty(client, 'status', { value: 'reconnecting', configurable: true });
    now += 1;
    expect(await take()).toBe('failed');
    expect(disconnect).toHaveBeenCalledWith(true);
    expect(connect).toHaveBeenCalledTimes(1);
  });
});
