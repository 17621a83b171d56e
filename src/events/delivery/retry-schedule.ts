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

/** `Retry-After` in seconds or as an HTTP date, in milliseconds from now; null if absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: Date): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}
