import type { BUSY_DETAILS } from './api-error.js';

/**
 * Recognises errors that mean PostgreSQL or Redis cannot be reached (as opposed to a bad query), so
 * they can be answered with 503 instead of 500. Drivers wrap the root cause differently (TypeORM's
 * QueryFailedError.driverError, pg-pool timeouts, ioredis offline-queue errors), so the check walks
 * `cause` / `driverError` chains.
 */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'ENOTCONN',
  // PostgreSQL: cannot connect now / admin shutdown / crash shutdown / too many connections
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);

const MESSAGE_PATTERNS = [
  /Connection terminated/i,
  /Client has encountered a connection error/i,
  /connection is closed/i,
  /Stream isn't writeable/i,
  /Reached the max retries per request limit/i,
  /Driver not Connected/i,
  /Cannot use a pool after calling end/i,
  /Query read timeout/i,
];

/**
 * Redis answers but cannot take the command now: a master demoted to a replica by a failover (READONLY, until
 * the client has reconnected to the new master), a replica without its master, a server loading its data, a
 * cluster without a master for a slot; or the client cannot find a server (sentinels, cluster nodes).
 */
const REDIS_UNAVAILABLE = [
  /^(READONLY|MASTERDOWN|LOADING|CLUSTERDOWN|TRYAGAIN|NOREPLICAS|BUSY)\b/,
  /All sentinels are unreachable/i,
  /None of startup nodes is available/i,
  /Failed to refresh slots cache/i,
  /Command timed out/i,
];

export type Dependency = 'postgres' | 'redis';

/**
 * PostgreSQL answers, but not in time for this request: every connection of the pool was in use for the
 * whole wait (pg-pool's queue timeout; a new connection that cannot be made fails with another message),
 * a row lock was not granted within `lock_timeout` (55P03), a statement ran past `statement_timeout`
 * (57014), a deadlock or serialization failure survived the transaction's retries (40P01, 40001), or the
 * server had no connection slot left for a new connection of the pool (53300, "too many clients": PostgreSQL is
 * up, so this is not an outage). The answer says which (`BUSY_DETAILS`): an operator reading a client's 503
 * knows which bound to look at without the API's log.
 */
/** A reason of BUSY_DETAILS that an error carries (`batch` is the collector's own: no error says it). */
export type BusyReason = Exclude<keyof typeof BUSY_DETAILS, 'batch'>;

const BUSY_CODES: Record<string, BusyReason> = { '55P03': 'lock', '57014': 'statement', '40P01': 'conflict', '40001': 'conflict', '53300': 'server' };

export function databaseBusy(error: unknown, depth = 0): BusyReason | null {
  if (depth > 5 || error === null || typeof error !== 'object') return null;
  const e = error as { code?: unknown; message?: unknown; cause?: unknown; driverError?: unknown };
  if (typeof e.message === 'string' && /^timeout exceeded when trying to connect$/i.test(e.message)) return 'pool';
  if (typeof e.code === 'string' && Object.hasOwn(BUSY_CODES, e.code)) return BUSY_CODES[e.code];
  return databaseBusy(e.driverError, depth + 1) ?? databaseBusy(e.cause, depth + 1);
}

export function unavailableDependency(error: unknown, depth = 0): Dependency | null {
  if (depth > 5 || error === null || typeof error !== 'object') return null;
  const e = error as { code?: unknown; message?: unknown; name?: unknown; cause?: unknown; driverError?: unknown; stack?: unknown };
  const message = typeof e.message === 'string' ? e.message : '';
  const code = typeof e.code === 'string' ? e.code : '';
  if (REDIS_UNAVAILABLE.some((p) => p.test(message))) return 'redis';
  if (NETWORK_CODES.has(code) || MESSAGE_PATTERNS.some((p) => p.test(message)) || e.name === 'MaxRetriesPerRequestError') {
    return looksLikeRedis(e) ? 'redis' : 'postgres';
  }
  return unavailableDependency(e.driverError, depth + 1) ?? unavailableDependency(e.cause, depth + 1);
}

function looksLikeRedis(e: { message?: unknown; stack?: unknown; name?: unknown }): boolean {
  const text = `${String(e.name)} ${String(e.message)} ${String(e.stack)}`;
  return /ioredis|bullmq|Stream isn't writeable|max retries per request/i.test(text);
}

/**
 * A PostgreSQL error caused by a value rather than by the query or the server: class 22 (data exception:
 * invalid text, out-of-range numbers, malformed JSON…), 54000 (a value too large for an index row) and
 * 23514 (a check constraint, e.g. a card's points past their cap; not the checks of a card's invariant, which no
 * value a caller sends can break: a write that breaks one is the service's own error).
 */
export function dataError(error: unknown): { code: string; message: string } | null {
  const driverError =
    (error as { driverError?: { code?: unknown; message?: unknown; constraint?: unknown } } | null)?.driverError ?? (error as { code?: unknown; message?: unknown; constraint?: unknown } | null);
  const code = typeof driverError?.code === 'string' ? driverError.code : '';
  if (!/^22[0-9A-Z]{3}$/.test(code) && code !== '54000' && code !== '23514') return null;
  if (code === '23514' && CARD_INVARIANTS.has(String(driverError?.constraint))) return null;
  if (driverError?.constraint === CARD_POINTS_CAP) return { code, message: CARD_POINTS_CAP_MESSAGE };
  return { code, message: typeof driverError?.message === 'string' ? driverError.message : code };
}

/** The checks of a card's invariant (migration CardBalanceCheck: balance = points − expired − subtracted − redeemed ≥ 0). */
const CARD_INVARIANTS = new Set(['CHK_vouchers_balance', 'CHK_vouchers_redeemed']);

/** The check that keeps a card's point columns where a JSON number is exact (migration CardPointsBigint). */
const CARD_POINTS_CAP = 'CHK_vouchers_points_safe';
export const CARD_POINTS_CAP_MESSAGE = "a card's points would pass 9007199254740991, the most a card can hold";
