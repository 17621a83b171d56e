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

describe('loadConfig', () => {
  it.each([
    ['', false],
    ['false', false],
    ['TRUE', true],
    ['1', 1],
    ['loopback, 10.0.0.0/8,::1', ['loopback', '10.0.0.0/8', '::1']],
  ])('TRUST_PROXY=%j is passed to Express as %j', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it.each(['yes', '10.0.0.0/33', 'loopback,proxy.example', '100'])('refuses TRUST_PROXY=%j', (value) => {
    expect(problems({ TRUST_PROXY: value })[0]).toMatch(/^TRUST_PROXY must be false, true, a number of proxy hops/);
  });

  it('pooling: the session URL defaults to DATABASE_URL, named statements follow the pooler unless set', () => {
    const url = 'postgres://u@db:5432/loyalty';
    const none = loadConfig({ DATABASE_URL: url, DATABASE_SESSION_URL: '', DATABASE_POOLER: '', DATABASE_PREPARED_STATEMENTS: '', MIGRATE_ON_START: '' });
    expect(none.pooling).toEqual({ sessionUrl: url, mode: 'none', preparedStatements: true, migrateOnStart: true });
    const pooled = loadConfig({ DATABASE_URL: 'postgres://u@bouncer:6432/loyalty', DATABASE_SESSION_URL: url, DATABASE_POOLER: 'transaction', DATABASE_PREPARED_STATEMENTS: '', MIGRATE_ON_START: 'false' });
    expect(pooled.pooling).toEqual({ sessionUrl: url, mode: 'transaction', preparedStatements: false, migrateOnStart: false });
    expect(loadConfig({ DATABASE_POOLER: 'transaction', DATABASE_SESSION_URL: url, DATABASE_PREPARED_STATEMENTS: 'true' }).pooling.preparedStatements).toBe(true);
    expect(problems({ DATABASE_POOLER: 'transaction', DATABASE_SESSION_URL: '' })[0]).toMatch(/^DATABASE_POOLER=transaction needs DATABASE_SESSION_URL/);
    expect(problems({ DATABASE_POOLER: 'session' })).toEqual(['DATABASE_POOLER must be none or transaction (got "session")']);
    expect(problems({ DATABASE_SESSION_URL: 'mysql://x/y' })).toEqual(['DATABASE_SESSION_URL must be a URL starting with postgres:// or postgresql:// (got "mysql://x/y")']);
    expect(problems({ MIGRATE_ON_START: 'no' })).toEqual(['MIGRATE_ON_START must be true or false (got "no")']);
  });

  it('applies the documented defaults of the HTTP edge', () => {
    const config = loadConfig({ AUTH_FAILURE_LIMIT: '', AUTH_NEGATIVE_CACHE_MS: '', HTTP_HEADERS_TIMEOUT_MS: '', HTTP_REQUEST_TIMEOUT_MS: '', HTTP_KEEP_ALIVE_TIMEOUT_MS: '' });
    expect(config.authFailureLimit).toBe(30);
    expect(config.authNegativeCacheMs).toBe(2_000);
    expect(config.httpTimeouts).toEqual({ headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 });
  });

  it('bounds events and earning rules by default; an event bound below what no cut can shorten is refused', () => {
    const config = loadConfig({ EVENT_PAYLOAD_MAX_BYTES: '', EARNING_RULES_MAX_PER_CAMPAIGN: '', EARNING_RULES_MAX_PER_PROJECT: '' });
    expect(config.events).toEqual({ payloadMaxBytes: 262_144 });
    expect(config.earningRules).toEqual({ maxPerCampaign: 100, maxPerProject: 1_000 });
    expect(problems({ EVENT_PAYLOAD_MAX_BYTES: '32767' })).toEqual(['EVENT_PAYLOAD_MAX_BYTES must be an integer from 32768 to 16777216 (got "32767")']);
    expect(problems({ EARNING_RULES_MAX_PER_PROJECT: '0' })).toEqual(['EARNING_RULES_MAX_PER_PROJECT must be an integer from 1 to 100000 (got "0")']);
  });

  it('applies the documented defaults', () => {
    const config = loadConfig({ PORT: '', WEBHOOK_ALLOWED_CIDRS: '', PENDING_POINTS_DAY_MS: '', WEBHOOK_TIMEOUT_MS: '', WEBHOOK_RETRY_BASE_MS: '' });
    expect(config.port).toBe(3000);
    expect(config.pendingPointsDayMs).toBe(86_400_000);
    expect(config.webhook).toEqual({ timeoutMs: 10_000, retryBaseMs: 60_000, allowedCidrs: [], projectMaxInFlight: 50, socketIdleMs: 4_000, maxDistributionsPerProject: 100, relayMaxDeliveries: 5_000, dispatchMaxBytes: 16_777_216 });
  });

  it('applies the documented defaults of Idempotency-Key', () => {
    const config = loadConfig({ IDEMPOTENCY_TTL_MS: '', IDEMPOTENCY_LEASE_MS: '', IDEMPOTENCY_SWEEP_MS: '' });
    expect(config.idempotency).toEqual({ ttlMs: 86_400_000, leaseMs: 60_000 });
    expect(config.sweeps.idempotencyMs).toBe(60_000);
    expect(loadConfig({ IDEMPOTENCY_TTL_MS: '3600000', IDEMPOTENCY_LEASE_MS: '5000', IDEMPOTENCY_SWEEP_MS: '10' })).toMatchObject({ idempotency: { ttlMs: 3_600_000, leaseMs: 5_000 }, sweeps: { idempotencyMs: 10 } });
  });

  it('applies the documented defaults of async actions', () => {
    const config = loadConfig({ ASYNC_ACTION_TTL_MS: '', ASYNC_ACTIONS_SWEEP_MS: '' });
    expect(config.asyncActions).toEqual({ ttlMs: 2_592_000_000 });
    expect(config.sweeps.asyncActionsMs).toBe(3_600_000);
    expect(loadConfig({ ASYNC_ACTION_TTL_MS: '60000', ASYNC_ACTIONS_SWEEP_MS: '10' })).toMatchObject({ asyncActions: { ttlMs: 60_000 }, sweeps: { asyncActionsMs: 10 } });
  });

  it('applies the documented default of the diagnostic ping sweep', () => {
    expect(loadConfig({ DIAGNOSTIC_PING_SWEEP_MS: '' }).sweeps.diagnosticPingsMs).toBe(30_000);
    expect(loadConfig({ DIAGNOSTIC_PING_SWEEP_MS: '1000' })).toMatchObject({ sweeps: { diagnosticPingsMs: 1_000 } });
  });

  it.each([
    ['PORT', 'abc', 'PORT must be an integer between 1 and 65535 (got "abc")'],
    ['PORT', '70000', 'PORT must be an integer between 1 and 65535 (got "70000")'],
    ['DATABASE_URL', 'mysql://x/y', 'DATABASE_URL must be a URL starting with postgres:// or postgresql://'],
    ['REDIS_URL', 'not a url', 'REDIS_URL must be a URL starting with redis:// or rediss://'],
    ['PENDING_POINTS_DAY_MS', '0', 'PENDING_POINTS_DAY_MS must be a positive integer'],
    ['WEBHOOK_TIMEOUT_MS', '1.5', 'WEBHOOK_TIMEOUT_MS must be an integer'],
    ['WEBHOOK_PROJECT_MAX_IN_FLIGHT', '101', 'WEBHOOK_PROJECT_MAX_IN_FLIGHT must be an integer from 1 to 100'],
    ['WEBHOOK_SOCKET_IDLE_MS', '50', 'WEBHOOK_SOCKET_IDLE_MS must be an integer from 100 to 600000'],
    ['WEBHOOK_RETRY_BASE_MS', '-1', 'WEBHOOK_RETRY_BASE_MS must be a positive integer'],
    ['WEBHOOK_ALLOWED_CIDRS', '127.0.0.1/33', 'WEBHOOK_ALLOWED_CIDRS must be a comma-separated list of CIDR ranges'],
    ['LOG_LEVEL', 'loud', 'LOG_LEVEL must be one of'],
    ['METRICS_TOKEN', 'short', 'METRICS_TOKEN must be 16-200 characters of letters, digits or ._~+/=- (it is sent as "Authorization: Bearer <token>") (got "short")'],
    ['METRICS_TOKEN', 'has a space in it ok', 'METRICS_TOKEN must be 16-200 characters'],
    ['WORKER_METRICS_PORT', '9x', 'WORKER_METRICS_PORT must be an integer between 1 and 65535 (got "9x")'],
    ['WORKER_METRICS_PORT', '70000', 'WORKER_METRICS_PORT must be an integer between 1 and 65535 (got "70000")'],
    ['METRICS_GAUGE_CACHE_MS', '-1', 'METRICS_GAUGE_CACHE_MS must be an integer from 0 to 300000 (milliseconds; 0 = read at every scrape) (got "-1")'],
    ['METRICS_GAUGE_CACHE_MS', '300001', 'METRICS_GAUGE_CACHE_MS must be an integer from 0 to 300000'],
    ['IDEMPOTENCY_TTL_MS', '59999', 'IDEMPOTENCY_TTL_MS must be an integer from 60000 to 2592000000 (milliseconds) (got "59999")'],
    ['IDEMPOTENCY_TTL_MS', '2592000001', 'IDEMPOTENCY_TTL_MS must be an integer from 60000 to 2592000000'],
    ['IDEMPOTENCY_LEASE_MS', '999', 'IDEMPOTENCY_LEASE_MS must be an integer from 1000 to 3600000 (milliseconds) (got "999")'],
    ['IDEMPOTENCY_LEASE_MS', '1m', 'IDEMPOTENCY_LEASE_MS must be an integer from 1000 to 3600000'],
    ['IDEMPOTENCY_SWEEP_MS', '9', 'IDEMPOTENCY_SWEEP_MS must be an integer from 10 to 86400000'],
    ['ASYNC_ACTION_TTL_MS', '59999', 'ASYNC_ACTION_TTL_MS must be an integer from 60000 to 31536000000 (milliseconds) (got "59999")'],
    ['ASYNC_ACTIONS_SWEEP_MS', '9', 'ASYNC_ACTIONS_SWEEP_MS must be an integer from 10 to 86400000'],
    ['DIAGNOSTIC_PING_SWEEP_MS', '9', 'DIAGNOSTIC_PING_SWEEP_MS must be an integer from 10 to 3600000 (milliseconds) (got "9")'],
    ['DIAGNOSTIC_PING_SWEEP_MS', '3600001', 'DIAGNOSTIC_PING_SWEEP_MS must be an integer from 10 to 3600000'],
    ['ADMIN_TOKEN', 'too-short', 'ADMIN_TOKEN must be 16-200 printable ASCII characters without spaces'],
    ['ADMIN_TOKEN', 'pässwörd-0123456789', 'ADMIN_TOKEN must be 16-200 printable ASCII characters without spaces'],
  ])('rejects %s=%s with a message naming it', (name, value, message) => {
    expect(problems({ [name]: value }).join('\n')).toContain(message);
  });

  it('requires both bootstrap variables together', () => {
    expect(problems({ BOOTSTRAP_APP_ID: 'app' })).toEqual(['BOOTSTRAP_APP_TOKEN must be set together with BOOTSTRAP_APP_ID (not set)']);
    expect(problems({ BOOTSTRAP_APP_TOKEN: 'token-0123456789abcdef' })).toEqual(['BOOTSTRAP_APP_ID must be set together with BOOTSTRAP_APP_TOKEN (not set)']);
    expect(loadConfig({ BOOTSTRAP_APP_ID: 'app', BOOTSTRAP_APP_TOKEN: 'token-0123456789abcdef' }).bootstrapKey).toEqual({ appId: 'app', appToken: 'token-0123456789abcdef' });
  });

  it('leaves metrics closed, the worker without a metrics port and bull-board off unless their variables are set', () => {
    const config = loadConfig({ METRICS_TOKEN: '', METRICS_PUBLIC: '', WORKER_METRICS_PORT: '', METRICS_GAUGE_CACHE_MS: '', ADMIN_TOKEN: '' });
    expect(config.metrics).toEqual({ token: null, served: false, workerPort: null, gaugeCacheMs: 10_000 });
    expect(config.adminToken).toBeNull();
    const set = loadConfig({ METRICS_TOKEN: 'metrics-token-0123456789', WORKER_METRICS_PORT: '9464', METRICS_GAUGE_CACHE_MS: '0', ADMIN_TOKEN: 'admin:token/0123456789' });
    expect(set.metrics).toEqual({ token: 'metrics-token-0123456789', served: true, workerPort: 9464, gaugeCacheMs: 0 });
    expect(set.adminToken).toBe('admin:token/0123456789');
  });

  it('serves /metrics only with METRICS_TOKEN or METRICS_PUBLIC=true, whatever NODE_ENV (issue 36)', () => {
    for (const NODE_ENV of ['', 'development', 'test', 'production']) {
      expect({ NODE_ENV, ...loadConfig({ NODE_ENV, METRICS_TOKEN: '', METRICS_PUBLIC: '' }).metrics }).toMatchObject({ NODE_ENV, token: null, served: false });
      expect({ NODE_ENV, ...loadConfig({ NODE_ENV, METRICS_TOKEN: '', METRICS_PUBLIC: 'true' }).metrics }).toMatchObject({ NODE_ENV, token: null, served: true });
      expect({ NODE_ENV, ...loadConfig({ NODE_ENV, METRICS_TOKEN: 'metrics-token-0123456789' }).metrics }).toMatchObject({ NODE_ENV, token: 'metrics-token-0123456789', served: true });
    }
    // A token is required when one is set, whatever METRICS_PUBLIC says.
    expect(loadConfig({ METRICS_TOKEN: 'metrics-token-0123456789', METRICS_PUBLIC: 'true' }).metrics).toMatchObject({ token: 'metrics-token-0123456789', served: true });
    expect(problems({ METRICS_PUBLIC: 'yes' }).join('\n')).toContain('METRICS_PUBLIC must be true or false');
  });

  it('refuses WORKER_METRICS_PORT while /metrics is closed: the worker would listen to refuse every scrape', () => {
    expect(problems({ WORKER_METRICS_PORT: '9464', METRICS_TOKEN: '', METRICS_PUBLIC: '' })).toEqual([
      'WORKER_METRICS_PORT needs METRICS_TOKEN (Prometheus sends it as a bearer token) or METRICS_PUBLIC=true: /metrics is closed without either',
    ]);
    expect(loadConfig({ WORKER_METRICS_PORT: '9464', METRICS_TOKEN: '', METRICS_PUBLIC: 'true' }).metrics).toMatchObject({ workerPort: 9464, served: true });
  });

  it('bounds the webhook limits', () => {
    expect(loadConfig({ WEBHOOK_MAX_DISTRIBUTIONS_PER_PROJECT: '3', WEBHOOK_RELAY_MAX_DELIVERIES: '7' }).webhook).toMatchObject({ maxDistributionsPerProject: 3, relayMaxDeliveries: 7 });
    expect(() => loadConfig({ WEBHOOK_MAX_DISTRIBUTIONS_PER_PROJECT: '0' })).toThrow(/WEBHOOK_MAX_DISTRIBUTIONS_PER_PROJECT must be an integer from 1 to 10000/);
    expect(() => loadConfig({ WEBHOOK_RELAY_MAX_DELIVERIES: '1000001' })).toThrow(/WEBHOOK_RELAY_MAX_DELIVERIES must be an integer from 1 to 1000000/);
  });

  it('parses an allow-list of CIDRs', () => {
    expect(loadConfig({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32, ::1/128' }).webhook.allowedCidrs).toEqual(['127.0.0.1/32', '::1/128']);
  });
});
