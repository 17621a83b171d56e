/** Retries after the first attempt; the 13th attempt is the last. */
export const MAX_RETRIES = 12;

/**
 * When retry `n` (1..12) is due, counted from the first attempt: base·2^(n−1) for n = 1..11, base·1440 for
 * the 12th (with the default base of one minute: 1, 2, 4 … 1,024 minutes, then 24 hours, as Voucherify).
 */
export function retryOffsetMs(n: number, baseMs: number): number {
  return n <= 11 ? baseMs * 2 ** (n - 1) : baseMs * 1440;
}

/**
 * The time of the next attempt after attempt number `attempts` failed, or null when none is left. A 429
 * or 503 with `Retry-After` waits at least that long.
 */
export function nextAttemptAt(firstAttemptAt: Date, attempts: number, baseMs: number, now: Date, retryAfterMs: number | null): Date | null {
  if (attempts > MAX_RETRIES) return null;
  const scheduled = Math.max(firstAttemptAt.getTime() + retryOffsetMs(attempts, baseMs), now.getTime());
  return new Date(retryAfterMs === null ? scheduled : Math.max(scheduled, now.getTime() + retryAfterMs));
}

/**
 * The longest wait a receiver's `Retry-After` can ask for: 24 hours, the longest gap of the retry schedule at
 * its default base. A larger value (`Retry-After: 9999999999999` is years past the last date JavaScript can
 * hold) is read as this.
 */
export const RETRY_AFTER_CAP_MS = 24 * 60 * 60 * 1000;

/** `Retry-After` in seconds or as an HTTP date, in milliseconds from now (at most the cap); null if absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: Date): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  const ms = /^\d+$/.test(trimmed) ? Number(trimmed) * 1000 : Date.parse(trimmed) - now.getTime();
  return Number.isNaN(ms) ? null : Math.min(RETRY_AFTER_CAP_MS, Math.max(0, ms));
}
