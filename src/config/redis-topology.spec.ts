import { ConfigError, loadConfig } from './app-config.js';

function problems(overrides: Record<string, string>): string[] {
  try {
    loadConfig(overrides);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

const UNSET = { REDIS_SENTINELS: '', REDIS_SENTINEL_NAME: '', REDIS_SENTINEL_PASSWORD: '', REDIS_CLUSTER_NODES: '', QUEUE_PREFIX: '', SHUTDOWN_DRAIN_MS: '', SHUTDOWN_TIMEOUT_MS: '' };

describe('Redis topology and shutdown settings', () => {
  it('one server by default; the shutdown as before (no drain, 25 s)', () => {
    const config = loadConfig({ ...UNSET, REDIS_URL: 'redis://cache:6380' });
    expect(config.redis).toEqual({ kind: 'standalone', url: 'redis://cache:6380' });
    expect(config.shutdown).toEqual({ drainMs: 0, timeoutMs: 25_000 });
  });

  it('Sentinel: the sentinels, the master name and password; REDIS_URL keeps the credentials', () => {
    const config = loadConfig({ ...UNSET, REDIS_URL: 'redis://:secret@ignored/2', REDIS_SENTINELS: 's1:26379, [::1]:26380,10.0.0.3:26381', REDIS_SENTINEL_NAME: 'loyalty-master', REDIS_SENTINEL_PASSWORD: 'sentinel-pw' });
    expect(config.redis).toEqual({
      kind: 'sentinel',
      url: 'redis://:secret@ignored/2',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: '::1', port: 26380 },
        { host: '10.0.0.3', port: 26381 },
      ],
      name: 'loyalty-master',
      sentinelPassword: 'sentinel-pw',
    });
    expect(loadConfig({ ...UNSET, REDIS_SENTINELS: 's1:26379' }).redis).toMatchObject({ name: 'mymaster', sentinelPassword: null });
  });

  it('Cluster: needs a hash tag in QUEUE_PREFIX, which is allowed (once)', () => {
    expect(loadConfig({ ...UNSET, REDIS_CLUSTER_NODES: 'n1:7000,n2:7001', QUEUE_PREFIX: '{loyalty}' }).redis).toEqual({
      kind: 'cluster',
      url: 'redis://127.0.0.1:6379',
      nodes: [
        { host: 'n1', port: 7000 },
        { host: 'n2', port: 7001 },
      ],
    });
    expect(loadConfig({ ...UNSET, QUEUE_PREFIX: 'shop-{loyalty}.v2' }).queuePrefix).toBe('shop-{loyalty}.v2');
    expect(problems({ ...UNSET, REDIS_CLUSTER_NODES: 'n1:7000', QUEUE_PREFIX: 'loyalty' })[0]).toMatch(/^REDIS_CLUSTER_NODES needs a QUEUE_PREFIX with a hash tag, such as \{loyalty\}/);
    expect(problems({ ...UNSET, QUEUE_PREFIX: '{a}{b}' })[0]).toMatch(/^QUEUE_PREFIX must be 1-64 characters/);
    expect(problems({ ...UNSET, QUEUE_PREFIX: '{}' })[0]).toMatch(/^QUEUE_PREFIX must be 1-64 characters/);
  });

  it('refuses malformed lists, both topologies at once, and a drain as long as the shutdown', () => {
    expect(problems({ ...UNSET, REDIS_SENTINELS: 's1' })).toEqual(['REDIS_SENTINELS must be a comma-separated list of host:port (the sentinels) (got "s1")']);
    expect(problems({ ...UNSET, REDIS_CLUSTER_NODES: 'redis://n1:7000' })[0]).toMatch(/^REDIS_CLUSTER_NODES must be a comma-separated list of host:port/);
    expect(problems({ ...UNSET, REDIS_SENTINEL_NAME: 'my master' })[0]).toMatch(/^REDIS_SENTINEL_NAME must be/);
    expect(problems({ ...UNSET, REDIS_SENTINELS: 's1:26379', REDIS_CLUSTER_NODES: 'n1:7000', QUEUE_PREFIX: '{l}' })[0]).toMatch(/^REDIS_SENTINELS and REDIS_CLUSTER_NODES exclude each other/);
    expect(problems({ ...UNSET, SHUTDOWN_DRAIN_MS: '25000' })[0]).toMatch(/^SHUTDOWN_DRAIN_MS must be less than SHUTDOWN_TIMEOUT_MS/);
    expect(loadConfig({ ...UNSET, SHUTDOWN_DRAIN_MS: '10000', SHUTDOWN_TIMEOUT_MS: '20000' }).shutdown).toEqual({ drainMs: 10_000, timeoutMs: 20_000 });
    expect(problems({ ...UNSET, SHUTDOWN_TIMEOUT_MS: '999' })[0]).toMatch(/^SHUTDOWN_TIMEOUT_MS must be an integer from 1000/);
  });
});
