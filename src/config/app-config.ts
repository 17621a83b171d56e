import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { type RedisTopology, redisTopology, redisTopologyProblems } from './redis-topology.js';
import { EnvironmentVariables, parseDataKey, parseTrustProxy, splitList, type LOG_LEVELS } from './environment.js';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * The validated, typed configuration. It is built once per process (from `process.env`) and injected
 * wherever a setting is needed; nothing else reads the environment.
 */
export class AppConfig {
  readonly port: number;
  readonly databaseUrl: string;
  /** How long a statement may wait for PostgreSQL's answer before the client gives up (0 = no limit). */
  readonly databaseQueryTimeoutMs: number;
  /** How long a statement may wait for a row lock before PostgreSQL gives up (lock_timeout; 0 = no limit). */
  readonly databaseLockTimeoutMs: number;
  /**
   * Behind a connection pooler (docs/scaling.md): `sessionUrl`, where what needs a session connects
   * (DATABASE_SESSION_URL, else DATABASE_URL); `mode`, what DATABASE_URL is (DATABASE_POOLER); `preparedStatements`, whether
   * the pool's connections use named prepared statements; `migrateOnStart`, whether processes migrate at start.
   */
  readonly pooling: { sessionUrl: string; mode: 'none' | 'transaction'; preparedStatements: boolean; migrateOnStart: boolean };
  /** Connections per process, and how long a request waits for a free one before it is answered 503 database_busy. */
  readonly databasePool: { size: number; waitMs: number };
  readonly redisUrl: string;
  /**
   * Where Redis is (docs/scaling.md "Redis"): one server (REDIS_URL), a master found through sentinels
   * (REDIS_SENTINELS, REDIS_SENTINEL_NAME, REDIS_SENTINEL_PASSWORD; REDIS_URL gives the credentials, database and TLS),
   * or a cluster (REDIS_CLUSTER_NODES). Every client is made by src/queue/redis-client.ts from this.
   */
  readonly redis: RedisTopology;
  /** SIGTERM: `drainMs`, the API's time serving with /health/ready at 503 before its listener closes; `timeoutMs`, the whole shutdown at most. */
  readonly shutdown: { drainMs: number; timeoutMs: number };
  readonly bootstrapKey: { appId: string; appToken: string } | null;
  readonly pendingPointsDayMs: number;
  /** How often the worker's sweeps run (in-process timers of each worker process). */
  readonly sweeps: { pendingPointsMs: number; pointsExpiryMs: number; cardGenerationMs: number; webhooksMs: number; idempotencyMs: number; asyncActionsMs: number; campaignDeletionMs: number; diagnosticPingsMs: number };
  /**
   * Point expiry (docs/points-expiry.md): `chunkBuckets`, the most due buckets of one card one statement expires
   * (one ledger row and one event each); `retryMs`, how long a card whose expiry failed stays set aside before
   * the sweep tries it again (0: until an operator releases it).
   */
  readonly pointsExpiry: { chunkBuckets: number; retryMs: number };
  /**
   * Idempotency-Key (docs/errors.md): `ttlMs`, how long a key and its stored answer are kept; `leaseMs`, how long
   * a claim whose request never finished (its process died) blocks the key before a retry may take it over.
   */
  readonly idempotency: { ttlMs: number; leaseMs: number };
  /** Async actions: `ttlMs`, how long one is kept (from its creation) before the worker's sweep deletes it. */
  readonly asyncActions: { ttlMs: number };
  /** Cards a campaign gets per turn before the worker moves on to the next project's campaign (card generation is shared round-robin). */
  readonly cardGenerationTurnCards: number;
  /** `payloadMaxBytes`: the most an event's `data` may hold (longer lists are cut, docs/webhooks.md "Size of an event"). */
  readonly events: { payloadMaxBytes: number };
  /** Earning rules a campaign and a project may have (live campaigns'): a paid order earns once per rule. */
  readonly earningRules: { maxPerCampaign: number; maxPerProject: number };
  /**
   * `maxDistributionsPerProject`: distributions one project may have (deleted ones no longer count);
   * `relayMaxDeliveries`: deliveries one relay transaction makes at most (at least one event per batch).
   */
  readonly webhook: { timeoutMs: number; retryBaseMs: number; allowedCidrs: string[]; maxDistributionsPerProject: number; relayMaxDeliveries: number; projectMaxInFlight: number; socketIdleMs: number; dispatchMaxBytes: number };
  /** How long an API process keeps an application key it has looked up (0 = every request reads it). */
  readonly appKeyCacheMs: number;
  /** How long an API process remembers that an app id is unknown (0 = every request with it reads the database). */
  readonly authNegativeCacheMs: number;
  /** Failed authentications a client address may make per minute, shared by every API process (0 = no limit). */
  readonly authFailureLimit: number;
  /** Express's 'trust proxy': which X-Forwarded-For hops name the client address (false: the socket's peer). */
  readonly trustProxy: boolean | number | string[];
  /** Node's HTTP server timeouts: all headers, the whole request, and an idle kept-alive connection. */
  readonly httpTimeouts: { headersMs: number; requestMs: number; keepAliveMs: number };
  /** Requests per second each project may make, shared by every API process (bursts of twice that); 0 = off. */
  readonly rateLimitPerSecond: number;
  readonly logLevel: (typeof LOG_LEVELS)[number];
  readonly queuePrefix: string;
  /**
   * `token`: the bearer token both /metrics endpoints require (null: none); `served`: whether /metrics is served
   * at all, on the API and the worker: with a token, or without one when METRICS_PUBLIC=true (issue 36: the
   * API's port is the one tenants reach); `workerPort`: the worker serves its /metrics there (null: not at all);
   * `gaugeCacheMs`: how long the API keeps the gauges it reads from Redis and PostgreSQL before a scrape reads
   * them again (0: every scrape).
   */
  readonly metrics: { token: string | null; served: boolean; workerPort: number | null; gaugeCacheMs: number };
  /** The password of bull-board at /admin/queues; null: the board is not mounted. */
  readonly adminToken: string | null;
  /**
   * Secrets at rest (DataCipher): `key` seals webhook secrets and custom header values (null: stored plain);
   * `previousKeys` only open values sealed before a rotation.
   */
  readonly dataEncryption: { key: Buffer | null; previousKeys: Buffer[] };

  constructor(env: EnvironmentVariables) {
    this.port = env.PORT;
    this.databaseUrl = env.DATABASE_URL;
    this.databaseQueryTimeoutMs = env.DATABASE_QUERY_TIMEOUT_MS;
    this.databaseLockTimeoutMs = env.DATABASE_LOCK_TIMEOUT_MS;
    this.pooling = {
      sessionUrl: env.DATABASE_SESSION_URL ?? env.DATABASE_URL,
      mode: env.DATABASE_POOLER === 'transaction' ? 'transaction' : 'none',
      preparedStatements: env.DATABASE_PREPARED_STATEMENTS === undefined ? env.DATABASE_POOLER !== 'transaction' : env.DATABASE_PREPARED_STATEMENTS === 'true',
      migrateOnStart: env.MIGRATE_ON_START === 'true',
    };
    this.databasePool = { size: env.DATABASE_POOL_SIZE, waitMs: env.DATABASE_POOL_WAIT_MS };
    this.redisUrl = env.REDIS_URL;
    this.redis = redisTopology(env);
    this.shutdown = { drainMs: env.SHUTDOWN_DRAIN_MS, timeoutMs: env.SHUTDOWN_TIMEOUT_MS };
    this.bootstrapKey =
      env.BOOTSTRAP_APP_ID && env.BOOTSTRAP_APP_TOKEN
        ? { appId: env.BOOTSTRAP_APP_ID, appToken: env.BOOTSTRAP_APP_TOKEN }
        : null;
    this.pendingPointsDayMs = env.PENDING_POINTS_DAY_MS;
    this.sweeps = { pendingPointsMs: env.PENDING_POINTS_SWEEP_MS, pointsExpiryMs: env.POINTS_EXPIRY_SWEEP_MS, cardGenerationMs: env.CARD_GENERATION_SWEEP_MS, webhooksMs: env.WEBHOOK_SWEEP_MS, idempotencyMs: env.IDEMPOTENCY_SWEEP_MS, asyncActionsMs: env.ASYNC_ACTIONS_SWEEP_MS, campaignDeletionMs: env.CAMPAIGN_DELETION_SWEEP_MS, diagnosticPingsMs: env.DIAGNOSTIC_PING_SWEEP_MS };
    this.pointsExpiry = { chunkBuckets: env.POINTS_EXPIRY_CHUNK_BUCKETS, retryMs: env.POINTS_EXPIRY_RETRY_MS };
    this.idempotency = { ttlMs: env.IDEMPOTENCY_TTL_MS, leaseMs: env.IDEMPOTENCY_LEASE_MS };
    this.asyncActions = { ttlMs: env.ASYNC_ACTION_TTL_MS };
    this.cardGenerationTurnCards = env.CARD_GENERATION_TURN_CARDS;
    this.events = { payloadMaxBytes: env.EVENT_PAYLOAD_MAX_BYTES };
    this.earningRules = { maxPerCampaign: env.EARNING_RULES_MAX_PER_CAMPAIGN, maxPerProject: env.EARNING_RULES_MAX_PER_PROJECT };
    this.webhook = {
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      retryBaseMs: env.WEBHOOK_RETRY_BASE_MS,
      allowedCidrs: splitList(env.WEBHOOK_ALLOWED_CIDRS),
      projectMaxInFlight: env.WEBHOOK_PROJECT_MAX_IN_FLIGHT,
      socketIdleMs: env.WEBHOOK_SOCKET_IDLE_MS,
      maxDistributionsPerProject: env.WEBHOOK_MAX_DISTRIBUTIONS_PER_PROJECT,
      relayMaxDeliveries: env.WEBHOOK_RELAY_MAX_DELIVERIES,
      dispatchMaxBytes: env.WEBHOOK_DISPATCH_MAX_BYTES,
    };
    this.appKeyCacheMs = env.APP_KEY_CACHE_MS;
    this.authNegativeCacheMs = env.AUTH_NEGATIVE_CACHE_MS;
    this.authFailureLimit = env.AUTH_FAILURE_LIMIT;
    this.trustProxy = parseTrustProxy(env.TRUST_PROXY) ?? false;
    this.httpTimeouts = { headersMs: env.HTTP_HEADERS_TIMEOUT_MS, requestMs: env.HTTP_REQUEST_TIMEOUT_MS, keepAliveMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS };
    this.rateLimitPerSecond = env.RATE_LIMIT_PER_SECOND;
    this.logLevel = env.LOG_LEVEL;
    this.queuePrefix = env.QUEUE_PREFIX;
    const token = env.METRICS_TOKEN ?? null;
    this.metrics = { token, served: token !== null || env.METRICS_PUBLIC === 'true', workerPort: env.WORKER_METRICS_PORT ?? null, gaugeCacheMs: env.METRICS_GAUGE_CACHE_MS };
    this.adminToken = env.ADMIN_TOKEN ?? null;
    this.dataEncryption = {
      key: env.DATA_ENCRYPTION_KEY ? parseDataKey(env.DATA_ENCRYPTION_KEY) : null,
      previousKeys: splitList(env.DATA_ENCRYPTION_PREVIOUS_KEYS ?? '').map((item) => parseDataKey(item) as Buffer),
    };
    Object.freeze(this);
  }
}

const KNOWN_VARIABLES = Object.keys(new EnvironmentVariables());

/**
 * Validates the environment. Empty strings count as unset, so `PORT=` falls back to the default
 * instead of failing in a confusing way.
 */
export function loadConfig(overrides: Record<string, string | undefined> = {}): AppConfig {
  const source = { ...process.env, ...overrides };
  const raw: Record<string, string> = {};
  for (const name of KNOWN_VARIABLES) {
    const value = source[name];
    if (value !== undefined && value !== '') raw[name] = value;
  }
  const env = plainToInstance(EnvironmentVariables, raw, { exposeDefaultValues: true });
  const errors = validateSync(env, { forbidUnknownValues: false, stopAtFirstError: true });
  if (errors.length > 0) throw new ConfigError(errors.flatMap((e) => describe(e, raw)));
  // Node refuses a headers timeout longer than the request timeout (the request includes its headers).
  if (env.HTTP_REQUEST_TIMEOUT_MS < env.HTTP_HEADERS_TIMEOUT_MS) {
    throw new ConfigError([`HTTP_REQUEST_TIMEOUT_MS must be at least HTTP_HEADERS_TIMEOUT_MS (got ${env.HTTP_REQUEST_TIMEOUT_MS} and ${env.HTTP_HEADERS_TIMEOUT_MS})`]);
  }
  // Behind a transaction-mode pooler the session's work (migrations, LISTEN, the dispatcher) must go elsewhere.
  if (env.DATABASE_POOLER === 'transaction' && env.DATABASE_SESSION_URL === undefined) {
    throw new ConfigError(['DATABASE_POOLER=transaction needs DATABASE_SESSION_URL: migrations, the webhook relay\'s LISTEN and the dispatcher need a session of their own, on PostgreSQL itself (docs/scaling.md)']);
  }
  const redisProblems = redisTopologyProblems(env);
  if (redisProblems.length > 0) throw new ConfigError(redisProblems);
  // A worker listening only to refuse every scrape is a mistake to say at start, not a port to find closed.
  if (env.WORKER_METRICS_PORT !== undefined && env.METRICS_TOKEN === undefined && env.METRICS_PUBLIC !== 'true') {
    throw new ConfigError(['WORKER_METRICS_PORT needs METRICS_TOKEN (Prometheus sends it as a bearer token) or METRICS_PUBLIC=true: /metrics is closed without either']);
  }
  return new AppConfig(env);
}

function describe(error: ValidationError, raw: Record<string, string>): string[] {
  const given = raw[error.property];
  const suffix = given === undefined ? ' (not set)' : ` (got ${JSON.stringify(given)})`;
  return Object.values(error.constraints ?? {}).map((message) => `${message}${suffix}`);
}

/** Entry points call this: a bad environment ends the process with a message naming the variable. */
export function loadConfigOrExit(overrides: Record<string, string> = {}): AppConfig {
  try {
    return loadConfig(overrides);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
