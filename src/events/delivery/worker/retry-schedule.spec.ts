import { MAX_RETRIES, RETRY_AFTER_CAP_MS, nextAttemptAt, parseRetryAfter, retryOffsetMs } from './retry-schedule.js';

describe('webhook retry schedule', () => {
  it('is Voucherify\'s: 1, 2, 4 … 1,024 minutes after the first attempt, then 24 hours', () => {
    const minutes = Array.from({ length: MAX_RETRIES }, (_, i) => retryOffsetMs(i + 1, 60_000) / 60_000);
    expect(minutes).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 1440]);
  });

  it('counts from the first attempt, waits at least Retry-After, and ends after the 12th retry', () => {
    const first = new Date('2026-01-01T00:00:00Z');
    const now = new Date('2026-01-01T00:00:30Z');
    expect(nextAttemptAt(first, 1, 60_000, now, null)).toEqual(new Date('2026-01-01T00:01:00Z'));
    expect(nextAttemptAt(first, 3, 60_000, now, null)).toEqual(new Date('2026-01-01T00:04:00Z'));
    expect(nextAttemptAt(first, 1, 60_000, now, 120_000)).toEqual(new Date('2026-01-01T00:02:30Z'));
    expect(nextAttemptAt(first, 12, 60_000, now, null)).toEqual(new Date('2026-01-02T00:00:00Z'));
    expect(nextAttemptAt(first, 13, 60_000, now, null)).toBeNull();
    // An attempt that took longer than the gap is followed at once, never in the past.
    expect(nextAttemptAt(first, 1, 1_000, now, null)).toEqual(now);
  });

  it('reads Retry-After in seconds or as an HTTP date', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5_000);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });

  it('caps Retry-After at 24 hours, however far it asks (a valid date comes out)', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(RETRY_AFTER_CAP_MS).toBe(86_400_000);
    expect(parseRetryAfter('9999999999999', now)).toBe(RETRY_AFTER_CAP_MS);
    expect(parseRetryAfter('Fri, 01 Jan 9999 00:00:00 GMT', now)).toBe(RETRY_AFTER_CAP_MS);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    const next = nextAttemptAt(now, 1, 60_000, now, parseRetryAfter('9999999999999', now)) as Date;
    expect(next.toISOString()).toBe('2026-01-02T00:00:00.000Z');
  });
});
