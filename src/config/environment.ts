import { isIP } from 'node:net';
import { Transform } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
  Validate,
  type ValidationArguments,
} from 'class-validator';
import { RedisEnvironmentVariables } from './redis-environment.js';

const toInt = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value;

@ValidatorConstraint({ name: 'connectionUrl' })
class ConnectionUrl implements ValidatorConstraintInterface {
  validate(value: unknown, args: ValidationArguments): boolean {
    if (typeof value !== 'string') return false;
    try {
      const url = new URL(value);
      return (args.constraints as string[]).includes(url.protocol) && url.hostname.length > 0;
    } catch {
      return false;
    }
  }
  defaultMessage(args: ValidationArguments): string {
    const schemes = (args.constraints as string[]).map((p) => `${p}//`).join(' or ');
    return `${args.property} must be a URL starting with ${schemes}`;
  }
}

@ValidatorConstraint({ name: 'cidrList' })
class CidrList implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    if (typeof value !== 'string') return false;
    return splitList(value).every(isCidr);
  }
  defaultMessage(args: ValidationArguments): string {
    return `${args.property} must be a comma-separated list of CIDR ranges such as 127.0.0.1/32 or ::1/128`;
  }
}

/** Express's 'trust proxy' values: false, true, a number of hops, or a list of addresses, CIDR ranges and names. */
const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

export function parseTrustProxy(value: string): boolean | number | string[] | null {
  const text = value.trim().toLowerCase();
  if (text === 'false') return false;
  if (text === 'true') return true;
  if (/^\d{1,2}$/.test(text)) return Number(text);
  const items = splitList(text);
  return items.length > 0 && items.every((item) => PROXY_NAMES.has(item) || isIP(item) !== 0 || isCidr(item)) ? items : null;
}

@ValidatorConstraint({ name: 'trustProxy' })
class TrustProxy implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && parseTrustProxy(value) !== null;
  }
  defaultMessage(args: ValidationArguments): string {
    return `${args.property} must be false, true, a number of proxy hops (0-99), or a comma-separated list of addresses, CIDR ranges, loopback, linklocal or uniquelocal`;
  }
}

/** A data encryption key: the base64 (or base64url) of exactly 32 random bytes (`openssl rand -base64 32`). */
export function parseDataKey(value: string): Buffer | null {
  const text = value.trim();
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) return null;
  const key = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return key.length === 32 ? key : null;
}

@ValidatorConstraint({ name: 'dataKeys' })
class DataKeys implements ValidatorConstraintInterface {
  validate(value: unknown, args: ValidationArguments): boolean {
    if (typeof value !== 'string') return false;
    const items = args.property === 'DATA_ENCRYPTION_KEY' ? [value] : splitList(value);
    return items.length > 0 && items.every((item) => parseDataKey(item) !== null);
  }
  defaultMessage(args: ValidationArguments): string {
    return `${args.property} must be ${args.property === 'DATA_ENCRYPTION_KEY' ? 'the base64 of 32 random bytes' : 'a comma-separated list of base64 keys of 32 bytes each'} (openssl rand -base64 32)`;
  }
}

export function splitList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

function isCidr(value: string): boolean {
  const [address, prefix, extra] = value.split('/');
  if (extra !== undefined || address === undefined || prefix === undefined || !/^\d{1,3}$/.test(prefix)) return false;
  const family = isIP(address);
  if (family === 0) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * The process environment as the README's configuration table lists it. Every variable has its default here, so the
 * defaults are documented in one place and validated like user input.
 */
export class EnvironmentVariables extends RedisEnvironmentVariables {
  @Transform(toInt)
  @IsInt({ message: 'PORT must be an integer between 1 and 65535' })
  @Min(1, { message: 'PORT must be an integer between 1 and 65535' })
  @Max(65535, { message: 'PORT must be an integer between 1 and 65535' })
  PORT: number = 3000;

  @Validate(ConnectionUrl, ['postgres:', 'postgresql:'])
  DATABASE_URL: string = 'postgres://postgres@127.0.0.1:5432/loyalty';

  @Validate(ConnectionUrl, ['redis:', 'rediss:'])
  REDIS_URL: string = 'redis://127.0.0.1:6379';

  @ValidateIf((env: EnvironmentVariables) => env.BOOTSTRAP_APP_ID !== undefined || env.BOOTSTRAP_APP_TOKEN !== undefined)
  @Matches(/^[A-Za-z0-9._-]{1,100}$/, {
    message: 'BOOTSTRAP_APP_ID must be 1-100 characters of letters, digits, ".", "_" or "-"',
  })
  // Validated first (decorators apply bottom-up), so an unset variable gets this message alone.
  @IsString({ message: 'BOOTSTRAP_APP_ID must be set together with BOOTSTRAP_APP_TOKEN' })
  BOOTSTRAP_APP_ID?: string = undefined;

  @ValidateIf((env: EnvironmentVariables) => env.BOOTSTRAP_APP_ID !== undefined || env.BOOTSTRAP_APP_TOKEN !== undefined)
  @MinLength(16, { message: 'BOOTSTRAP_APP_TOKEN must be at least 16 characters long' })
  @MaxLength(200, { message: 'BOOTSTRAP_APP_TOKEN must be at most 200 characters long' })
  @IsString({ message: 'BOOTSTRAP_APP_TOKEN must be set together with BOOTSTRAP_APP_ID' })
  BOOTSTRAP_APP_TOKEN?: string = undefined;

  @Transform(toInt)
  @IsInt({ message: 'DATABASE_QUERY_TIMEOUT_MS must be an integer from 0 to 3600000 (milliseconds; 0 = no limit)' })
  @Min(0, { message: 'DATABASE_QUERY_TIMEOUT_MS must be an integer from 0 to 3600000 (milliseconds; 0 = no limit)' })
  @Max(3_600_000, { message: 'DATABASE_QUERY_TIMEOUT_MS must be an integer from 0 to 3600000 (milliseconds; 0 = no limit)' })
  DATABASE_QUERY_TIMEOUT_MS: number = 15_000;

  @Transform(toInt)
  @IsInt({ message: 'DATABASE_LOCK_TIMEOUT_MS must be an integer from 0 to 600000 (milliseconds; 0 = no limit)' })
  @Min(0, { message: 'DATABASE_LOCK_TIMEOUT_MS must be an integer from 0 to 600000 (milliseconds; 0 = no limit)' })
  @Max(600_000, { message: 'DATABASE_LOCK_TIMEOUT_MS must be an integer from 0 to 600000 (milliseconds; 0 = no limit)' })
  DATABASE_LOCK_TIMEOUT_MS: number = 3_000;

  @Transform(toInt)
  @IsInt({ message: 'DATABASE_POOL_SIZE must be an integer from 2 to 200' })
  @Min(2, { message: 'DATABASE_POOL_SIZE must be an integer from 2 to 200' })
  @Max(200, { message: 'DATABASE_POOL_SIZE must be an integer from 2 to 200' })
  DATABASE_POOL_SIZE: number = 10;

  @Transform(toInt)
  @IsInt({ message: 'DATABASE_POOL_WAIT_MS must be an integer from 100 to 60000 (milliseconds)' })
  @Min(100, { message: 'DATABASE_POOL_WAIT_MS must be an integer from 100 to 60000 (milliseconds)' })
  @Max(60_000, { message: 'DATABASE_POOL_WAIT_MS must be an integer from 100 to 60000 (milliseconds)' })
  DATABASE_POOL_WAIT_MS: number = 2_000;

  @Transform(toInt)
  @IsInt({ message: 'PENDING_POINTS_DAY_MS must be a positive integer (milliseconds)' })
  @Min(1, { message: 'PENDING_POINTS_DAY_MS must be a positive integer (milliseconds)' })
  PENDING_POINTS_DAY_MS: number = 86_400_000;

  @Transform(toInt)
  @IsInt({ message: 'WEBHOOK_TIMEOUT_MS must be an integer between 1 and 600000 (milliseconds)' })
  @Min(1, { message: 'WEBHOOK_TIMEOUT_MS must be an integer between 1 and 600000 (milliseconds)' })
  @Max(600_000, { message: 'WEBHOOK_TIMEOUT_MS must be an integer between 1 and 600000 (milliseconds)' })
  WEBHOOK_TIMEOUT_MS: number = 10_000;

  @Transform(toInt)
  @IsInt({ message: 'WEBHOOK_RETRY_BASE_MS must be a positive integer (milliseconds)' })
  @Min(1, { message: 'WEBHOOK_RETRY_BASE_MS must be a positive integer (milliseconds)' })
  WEBHOOK_RETRY_BASE_MS: number = 60_000;

  @Validate(CidrList)
  WEBHOOK_ALLOWED_CIDRS: string = '';

  @Transform(toInt)
  @IsInt({ message: 'WEBHOOK_SWEEP_MS must be an integer from 10 to 86400000 (milliseconds)' })
  @Min(10, { message: 'WEBHOOK_SWEEP_MS must be an integer from 10 to 86400000 (milliseconds)' })
  @Max(86_400_000, { message: 'WEBHOOK_SWEEP_MS must be an integer from 10 to 86400000 (milliseconds)' })
  WEBHOOK_SWEEP_MS: number = 30_000;

  /** A project's share of a worker's 100 dispatcher slots: requests in flight at once, at most. */
  @Transform(toInt)
  @IsInt({ message: 'WEBHOOK_PROJECT_MAX_IN_FLIGHT must be an integer from 1 to 100 (requests in flight per worker)' })
  @Min(1, { message: 'WEBHOOK_PROJECT_MAX_IN_FLIGHT must be an integer from 1 to 100 (requests in flight per worker)' })
  @Max(100, { message: 'WEBHOOK_PROJECT_MAX_IN_FLIGHT must be an integer from 1 to 100 (requests in flight per worker)' })
  WEBHOOK_PROJECT_MAX_IN_FLIGHT: number = 50;

  /** Event payload bytes a worker's dispatcher reads per claim and holds in requests in flight, at most. */
  @Transform(toInt)
  @IsInt({ message: 'WEBHOOK_DISPATCH_MAX_BYTES must be an integer from 1048576 to 1073741824 (bytes)' })
  @Min(1_048_576, { message: 'WEBHOOK_DISPATCH_MAX_BYTES must be an integer from 1048576 to 1073741824 (bytes)' })
  @Max(1_073_741_824, { message: 'WEBHOOK_DISPATCH_MAX_BYTES must be an integer from 1048576 to 1073741824 (bytes)' })
  WEBHOOK_DISPATCH_MAX_BYTES: number = 16_777_216;

  @Transform(toInt)
  @IsInt({ message: 'WEBHOOK_SOCKET_IDLE_MS must be an integer from 100 to 600000 (milliseconds)' })
  @Min(100, { message: 'WEBHOOK_SOCKET_IDLE_MS must be an integer from 100 to 600000 (milliseconds)' })
  @Max(600_000, { message: 'WEBHOOK_SOCKET_IDLE_MS must be an integer from 100 to 600000 (milliseconds)' })
  WEBHOOK_SOCKET_IDLE_MS: number = 4_000;

  @Transform(toInt)
  @IsInt({ message: 'WEBHOOK_MAX_DISTRIBUTIONS_PER_PROJECT must be an integer from 1 to 10000' })
  @Min(1, { message: 'WEBHOOK_MAX_DISTRIBUTIONS_PER_PROJECT must be an integer from 1 to 10000' })
  @Max(10_000, { message: 'WEBHOOK_MAX_DISTRIBUTIONS_PER_PROJECT must be an integer from 1 to 10000' })
  WEBHOOK_MAX_DISTRIBUTIONS_PER_PROJECT: number = 100;

  @Transform(toInt)
  @IsInt({ message: 'WEBHOOK_RELAY_MAX_DELIVERIES must be an integer from 1 to 1000000' })
  @Min(1, { message: 'WEBHOOK_RELAY_MAX_DELIVERIES must be an integer from 1 to 1000000' })
  @Max(1_000_000, { message: 'WEBHOOK_RELAY_MAX_DELIVERIES must be an integer from 1 to 1000000' })
  WEBHOOK_RELAY_MAX_DELIVERIES: number = 5_000;

  @Transform(toInt)
  @IsInt({ message: 'PENDING_POINTS_SWEEP_MS must be an integer from 10 to 86400000 (milliseconds)' })
  @Min(10, { message: 'PENDING_POINTS_SWEEP_MS must be an integer from 10 to 86400000 (milliseconds)' })
  @Max(86_400_000, { message: 'PENDING_POINTS_SWEEP_MS must be an integer from 10 to 86400000 (milliseconds)' })
  PENDING_POINTS_SWEEP_MS: number = 60_000;

  @Transform(toInt)
  @IsInt({ message: 'POINTS_EXPIRY_SWEEP_MS must be an integer from 10 to 86400000 (milliseconds)' })
  @Min(10, { message: 'POINTS_EXPIRY_SWEEP_MS must be an integer from 10 to 86400000 (milliseconds)' })
  @Max(86_400_000, { message: 'POINTS_EXPIRY_SWEEP_MS must be an integer from 10 to 86400000 (milliseconds)' })
  POINTS_EXPIRY_SWEEP_MS: number = 60_000;

  @Transform(toInt)
  @IsInt({ message: 'POINTS_EXPIRY_CHUNK_BUCKETS must be an integer from 1 to 10000' })
  @Min(1, { message: 'POINTS_EXPIRY_CHUNK_BUCKETS must be an integer from 1 to 10000' })
  @Max(10_000, { message: 'POINTS_EXPIRY_CHUNK_BUCKETS must be an integer from 1 to 10000' })
  POINTS_EXPIRY_CHUNK_BUCKETS: number = 100;

  @Transform(toInt)
  @IsInt({ message: 'POINTS_EXPIRY_RETRY_MS must be an integer from 0 to 2592000000 (milliseconds; 0 = only when released)' })
  @Min(0, { message: 'POINTS_EXPIRY_RETRY_MS must be an integer from 0 to 2592000000 (milliseconds; 0 = only when released)' })
  @Max(2_592_000_000, { message: 'POINTS_EXPIRY_RETRY_MS must be an integer from 0 to 2592000000 (milliseconds; 0 = only when released)' })
  POINTS_EXPIRY_RETRY_MS: number = 3_600_000;

  @Transform(toInt)
  @IsInt({ message: 'CARD_GENERATION_SWEEP_MS must be an integer from 10 to 86400000 (milliseconds)' })
  @Min(10, { message: 'CARD_GENERATION_SWEEP_MS must be an integer from 10 to 86400000 (milliseconds)' })
  @Max(86_400_000, { message: 'CARD_GENERATION_SWEEP_MS must be an integer from 10 to 86400000 (milliseconds)' })
  CARD_GENERATION_SWEEP_MS: number = 60_000;

  @Transform(toInt)
  @IsInt({ message: 'IDEMPOTENCY_TTL_MS must be an integer from 60000 to 2592000000 (milliseconds)' })
  @Min(60_000, { message: 'IDEMPOTENCY_TTL_MS must be an integer from 60000 to 2592000000 (milliseconds)' })
  @Max(2_592_000_000, { message: 'IDEMPOTENCY_TTL_MS must be an integer from 60000 to 2592000000 (milliseconds)' })
  IDEMPOTENCY_TTL_MS: number = 86_400_000;

  /** A claim older than this whose request never finished (its process died) may be taken over by a retry. */
  @Transform(toInt)
  @IsInt({ message: 'IDEMPOTENCY_LEASE_MS must be an integer from 1000 to 3600000 (milliseconds)' })
  @Min(1_000, { message: 'IDEMPOTENCY_LEASE_MS must be an integer from 1000 to 3600000 (milliseconds)' })
  @Max(3_600_000, { message: 'IDEMPOTENCY_LEASE_MS must be an integer from 1000 to 3600000 (milliseconds)' })
  IDEMPOTENCY_LEASE_MS: number = 60_000;

  @Transform(toInt)
  @IsInt({ message: 'IDEMPOTENCY_SWEEP_MS must be an integer from 10 to 86400000 (milliseconds)' })
  @Min(10, { message: 'IDEMPOTENCY_SWEEP_MS must be an integer from 10 to 86400000 (milliseconds)' })
  @Max(86_400_000, { message: 'IDEMPOTENCY_SWEEP_MS must be an integer from 10 to 86400000 (milliseconds)' })
  IDEMPOTENCY_SWEEP_MS: number = 60_000;

  /** How long an async action (`aa_…`, the answer of a campaign deletion) can be read back before the sweep deletes it. */
  @Transform(toInt)
  @IsInt({ message: 'ASYNC_ACTION_TTL_MS must be an integer from 60000 to 31536000000 (milliseconds)' })
  @Min(60_000, { message: 'ASYNC_ACTION_TTL_MS must be an integer from 60000 to 31536000000 (milliseconds)' })
  @Max(31_536_000_000, { message: 'ASYNC_ACTION_TTL_MS must be an integer from 60000 to 31536000000 (milliseconds)' })
  ASYNC_ACTION_TTL_MS: number = 2_592_000_000;

  @Transform(toInt)
  @IsInt({ message: 'ASYNC_ACTIONS_SWEEP_MS must be an integer from 10 to 86400000 (milliseconds)' })
  @Min(10, { message: 'ASYNC_ACTIONS_SWEEP_MS must be an integer from 10 to 86400000 (milliseconds)' })
  @Max(86_400_000, { message: 'ASYNC_ACTIONS_SWEEP_MS must be an integer from 10 to 86400000 (milliseconds)' })
  ASYNC_ACTIONS_SWEEP_MS: number = 3_600_000;

  @Transform(toInt)
  @IsInt({ message: 'CAMPAIGN_DELETION_SWEEP_MS must be an integer from 10 to 3600000 (milliseconds)' })
  @Min(10, { message: 'CAMPAIGN_DELETION_SWEEP_MS must be an integer from 10 to 3600000 (milliseconds)' })
  @Max(3_600_000, { message: 'CAMPAIGN_DELETION_SWEEP_MS must be an integer from 10 to 3600000 (milliseconds)' })
  CAMPAIGN_DELETION_SWEEP_MS: number = 5_000;

  /** How often the worker enqueues again the jobs of pings still QUEUED (a job Redis lost in a failover). */
  @Transform(toInt)
  @IsInt({ message: 'DIAGNOSTIC_PING_SWEEP_MS must be an integer from 10 to 3600000 (milliseconds)' })
  @Min(10, { message: 'DIAGNOSTIC_PING_SWEEP_MS must be an integer from 10 to 3600000 (milliseconds)' })
  @Max(3_600_000, { message: 'DIAGNOSTIC_PING_SWEEP_MS must be an integer from 10 to 3600000 (milliseconds)' })
  DIAGNOSTIC_PING_SWEEP_MS: number = 30_000;

  @Transform(toInt)
  @IsInt({ message: 'CARD_GENERATION_TURN_CARDS must be an integer from 1 to 1000000 (cards)' })
  @Min(1, { message: 'CARD_GENERATION_TURN_CARDS must be an integer from 1 to 1000000 (cards)' })
  @Max(1_000_000, { message: 'CARD_GENERATION_TURN_CARDS must be an integer from 1 to 1000000 (cards)' })
  CARD_GENERATION_TURN_CARDS: number = 20_000;

  @Transform(toInt)
  @IsInt({ message: 'EVENT_PAYLOAD_MAX_BYTES must be an integer from 32768 to 16777216' })
  @Min(32_768, { message: 'EVENT_PAYLOAD_MAX_BYTES must be an integer from 32768 to 16777216' })
  @Max(16_777_216, { message: 'EVENT_PAYLOAD_MAX_BYTES must be an integer from 32768 to 16777216' })
  EVENT_PAYLOAD_MAX_BYTES: number = 262_144;

  @Transform(toInt)
  @IsInt({ message: 'EARNING_RULES_MAX_PER_CAMPAIGN must be an integer from 1 to 10000' })
  @Min(1, { message: 'EARNING_RULES_MAX_PER_CAMPAIGN must be an integer from 1 to 10000' })
  @Max(10_000, { message: 'EARNING_RULES_MAX_PER_CAMPAIGN must be an integer from 1 to 10000' })
  EARNING_RULES_MAX_PER_CAMPAIGN: number = 100;

  @Transform(toInt)
  @IsInt({ message: 'EARNING_RULES_MAX_PER_PROJECT must be an integer from 1 to 100000' })
  @Min(1, { message: 'EARNING_RULES_MAX_PER_PROJECT must be an integer from 1 to 100000' })
  @Max(100_000, { message: 'EARNING_RULES_MAX_PER_PROJECT must be an integer from 1 to 100000' })
  EARNING_RULES_MAX_PER_PROJECT: number = 1_000;

  @Transform(toInt)
  @IsInt({ message: 'APP_KEY_CACHE_MS must be an integer from 0 to 60000 (milliseconds; 0 = no cache)' })
  @Min(0, { message: 'APP_KEY_CACHE_MS must be an integer from 0 to 60000 (milliseconds; 0 = no cache)' })
  @Max(60_000, { message: 'APP_KEY_CACHE_MS must be an integer from 0 to 60000 (milliseconds; 0 = no cache)' })
  APP_KEY_CACHE_MS: number = 5_000;

  @Transform(toInt)
  @IsInt({ message: 'AUTH_NEGATIVE_CACHE_MS must be an integer from 0 to 60000 (milliseconds; 0 = no cache)' })
  @Min(0, { message: 'AUTH_NEGATIVE_CACHE_MS must be an integer from 0 to 60000 (milliseconds; 0 = no cache)' })
  @Max(60_000, { message: 'AUTH_NEGATIVE_CACHE_MS must be an integer from 0 to 60000 (milliseconds; 0 = no cache)' })
  AUTH_NEGATIVE_CACHE_MS: number = 2_000;

  @Transform(toInt)
  @IsInt({ message: 'AUTH_FAILURE_LIMIT must be an integer from 0 to 100000 (failed authentications per minute per client address; 0 = no limit)' })
  @Min(0, { message: 'AUTH_FAILURE_LIMIT must be an integer from 0 to 100000 (failed authentications per minute per client address; 0 = no limit)' })
  @Max(100_000, { message: 'AUTH_FAILURE_LIMIT must be an integer from 0 to 100000 (failed authentications per minute per client address; 0 = no limit)' })
  AUTH_FAILURE_LIMIT: number = 30;

  @Validate(TrustProxy)
  TRUST_PROXY: string = 'false';

  @Transform(toInt)
  @IsInt({ message: 'HTTP_HEADERS_TIMEOUT_MS must be an integer from 1000 to 600000 (milliseconds)' })
  @Min(1_000, { message: 'HTTP_HEADERS_TIMEOUT_MS must be an integer from 1000 to 600000 (milliseconds)' })
  @Max(600_000, { message: 'HTTP_HEADERS_TIMEOUT_MS must be an integer from 1000 to 600000 (milliseconds)' })
  HTTP_HEADERS_TIMEOUT_MS: number = 10_000;

  @Transform(toInt)
  @IsInt({ message: 'HTTP_REQUEST_TIMEOUT_MS must be an integer from 1000 to 3600000 (milliseconds), at least HTTP_HEADERS_TIMEOUT_MS' })
  @Min(1_000, { message: 'HTTP_REQUEST_TIMEOUT_MS must be an integer from 1000 to 3600000 (milliseconds), at least HTTP_HEADERS_TIMEOUT_MS' })
  @Max(3_600_000, { message: 'HTTP_REQUEST_TIMEOUT_MS must be an integer from 1000 to 3600000 (milliseconds), at least HTTP_HEADERS_TIMEOUT_MS' })
  HTTP_REQUEST_TIMEOUT_MS: number = 30_000;

  @Transform(toInt)
  @IsInt({ message: 'HTTP_KEEP_ALIVE_TIMEOUT_MS must be an integer from 1000 to 600000 (milliseconds)' })
  @Min(1_000, { message: 'HTTP_KEEP_ALIVE_TIMEOUT_MS must be an integer from 1000 to 600000 (milliseconds)' })
  @Max(600_000, { message: 'HTTP_KEEP_ALIVE_TIMEOUT_MS must be an integer from 1000 to 600000 (milliseconds)' })
  HTTP_KEEP_ALIVE_TIMEOUT_MS: number = 5_000;

  @Transform(toInt)
  @IsInt({ message: 'RATE_LIMIT_PER_SECOND must be an integer from 0 to 1000000 (requests per second per project; 0 = no limit)' })
  @Min(0, { message: 'RATE_LIMIT_PER_SECOND must be an integer from 0 to 1000000 (requests per second per project; 0 = no limit)' })
  @Max(1_000_000, { message: 'RATE_LIMIT_PER_SECOND must be an integer from 0 to 1000000 (requests per second per project; 0 = no limit)' })
  RATE_LIMIT_PER_SECOND: number = 300;

  @IsIn(LOG_LEVELS, { message: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}` })
  LOG_LEVEL: (typeof LOG_LEVELS)[number] = 'info';

  @IsOptional()
  // A Redis Cluster hash tag ({…}, once) keeps every key of the service in one slot, as BullMQ needs there.
  @Matches(/^(?=.{1,64}$)[A-Za-z0-9_.-]*(\{[A-Za-z0-9_.-]+\}[A-Za-z0-9_.-]*)?$/, { message: 'QUEUE_PREFIX must be 1-64 characters of letters, digits, ".", "_" or "-", with at most one hash tag such as {loyalty}' })
  QUEUE_PREFIX: string = 'loyalty';

  // The two secrets below travel in an Authorization header, so they are limited to characters a header carries
  // unchanged (no spaces, no non-ASCII), and long enough not to be guessed.
  @IsOptional()
  @Matches(/^[A-Za-z0-9._~+/=-]{16,200}$/, { message: 'METRICS_TOKEN must be 16-200 characters of letters, digits or ._~+/=- (it is sent as "Authorization: Bearer <token>")' })
  METRICS_TOKEN?: string = undefined;

  @Transform(toInt)
  @IsInt({ message: 'METRICS_GAUGE_CACHE_MS must be an integer from 0 to 300000 (milliseconds; 0 = read at every scrape)' })
  @Min(0, { message: 'METRICS_GAUGE_CACHE_MS must be an integer from 0 to 300000 (milliseconds; 0 = read at every scrape)' })
  @Max(300_000, { message: 'METRICS_GAUGE_CACHE_MS must be an integer from 0 to 300000 (milliseconds; 0 = read at every scrape)' })
  METRICS_GAUGE_CACHE_MS: number = 10_000;

  @Transform(toInt)
  @IsOptional()
  @IsInt({ message: 'WORKER_METRICS_PORT must be an integer between 1 and 65535' })
  @Min(1, { message: 'WORKER_METRICS_PORT must be an integer between 1 and 65535' })
  @Max(65535, { message: 'WORKER_METRICS_PORT must be an integer between 1 and 65535' })
  WORKER_METRICS_PORT?: number = undefined;

  // Without METRICS_TOKEN, /metrics is closed unless this says it may be open (to anyone who reaches the port).
  @IsIn(['true', 'false'], { message: 'METRICS_PUBLIC must be true or false' })
  METRICS_PUBLIC: string = 'false';

  @IsOptional()
  @Matches(/^[\x21-\x7e]{16,200}$/, { message: 'ADMIN_TOKEN must be 16-200 printable ASCII characters without spaces (it is the HTTP basic auth password of /admin/queues)' })
  ADMIN_TOKEN?: string = undefined;

  // Webhook secrets and custom header values are sealed with it (AES-256-GCM) when set (docs/operations.md).
  @IsOptional()
  @Validate(DataKeys)
  DATA_ENCRYPTION_KEY?: string = undefined;

  // Keys that still open values sealed before a rotation; never used to seal.
  @IsOptional()
  @Validate(DataKeys)
  DATA_ENCRYPTION_PREVIOUS_KEYS?: string = undefined;
}
