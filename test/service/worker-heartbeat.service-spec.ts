import { WorkerHeartbeat, workerHeartbeats } from '../../src/queue/worker-heartbeat.js';
import { testConfig, waitFor } from '../support/harness.js';
import { TcpProxy } from '../support/tcp-proxy.js';

/**
 * The worker's heartbeat on the run's Redis, reached through a proxy that can hang the connection it holds:
 * beats that fail for a TTL get a new connection, so a worker whose queues came back does not stay "dead" to
 * `worker-health` (a Sentinel failover left one such connection behind in a loaded CI run).
 */
describe('the worker heartbeat', () => {
  const config = testConfig();
  const direct = { kind: 'standalone' as const, url: config.redisUrl };
  const timing = { everyMs: 100, ttlMs: 600 };

  it('renews a connection that hangs, and its beats count again', async () => {
    const redis = new URL(config.redisUrl);
    const proxy = new TcpProxy(redis.hostname, Number(redis.port || 6379));
    await proxy.start();
    const prefix = `${config.queuePrefix}_hb`;
    const heartbeat = new WorkerHeartbeat({ kind: 'standalone', url: `redis://127.0.0.1:${proxy.port}` }, prefix, timing);
    try {
      heartbeat.start();
      await waitFor(async () => ((await workerHeartbeats(direct, prefix)).length === 1 ? true : undefined), { timeoutMs: 10_000, intervalMs: 50 });

      // The held connection answers nothing from now on: a beat made later can only come through a new one.
      proxy.stall();
      const stalledAt = Date.now();
      const beat = await waitFor(async () => {
        const [live] = await workerHeartbeats(direct, prefix);
        return live && new Date(live.at).getTime() > stalledAt ? live : undefined;
      }, { timeoutMs: 10_000, intervalMs: 50 });
      expect(beat).toMatchObject({ pid: process.pid, worker_id: expect.any(String) });
    } finally {
      await heartbeat.stop();
      await proxy.cut();
    }
    // A clean stop removes the beat at once.
    expect(await workerHeartbeats(direct, prefix)).toEqual([]);
  });
});
