import { LEASE_MS, TokenLeases } from './token-leases.js';

const bucket = (granted: number, remaining: number, retryAfterMs = 0) => ({ granted, remaining, retryAfterMs });

/** `count` requests of the project at `now`, none served from a lease. */
function arrive(leases: TokenLeases, count: number, now: number): void {
  for (let i = 0; i < count; i++) expect(leases.spend('p', now)).toBeNull();
}

describe('TokenLeases', () => {
  it('below 40 requests a second per project: one token per request, never taken ahead', () => {
    const leases = new TokenLeases(39);
    arrive(leases, 50, 1_000);
    arrive(leases, 1, 1_000 + LEASE_MS);
    expect(leases.wanted('p')).toBe(1);
    expect(leases.granted('p', 1, bucket(1, 70), 1_000)).toEqual({ accepted: true, remaining: 70, retryAfterMs: 0 });
    expect(leases.spend('p', 1_001)).toBeNull();
  });

  it('a busy project takes half of its last window’s requests ahead, and spends them one per request', () => {
    const leases = new TokenLeases(1_000);
    arrive(leases, 30, 1_000);
    expect(leases.wanted('p')).toBe(1); // nothing seen in a window before
    leases.failed('p', 1);
    arrive(leases, 1, 1_000 + LEASE_MS);
    expect(leases.wanted('p')).toBe(15);
    expect(leases.granted('p', 15, bucket(15, 500), 1_100)).toEqual({ accepted: true, remaining: 514, retryAfterMs: 0 });
    for (let left = 13; left >= 0; left--) expect(leases.spend('p', 1_150)).toEqual({ accepted: true, remaining: 500 + left, retryAfterMs: 0 });
    expect(leases.spend('p', 1_150)).toBeNull();
  });

  it('never reports more left than the bucket holds, when a lease taken earlier meets a refilled bucket', () => {
    const leases = new TokenLeases(1_000, 2_000);
    arrive(leases, 30, 1_000);
    leases.failed('p', leases.wanted('p'));
    arrive(leases, 1, 1_000 + LEASE_MS);
    expect(leases.granted('p', 15, bucket(15, 1_990), 1_100).remaining).toBe(2_000); // 1,990 + 14 held
    // A one-token take while the lease is held: Redis refilled to 1,999 after it.
    expect(leases.granted('p', 1, bucket(1, 1_999), 1_120)).toEqual({ accepted: true, remaining: 2_000, retryAfterMs: 0 });
    expect(leases.spend('p', 1_130)?.remaining).toBe(2_000);
  });

  it('never asks for more than a twentieth of a second’s tokens', () => {
    const leases = new TokenLeases(300);
    arrive(leases, 1_000, 1_000);
    arrive(leases, 1, 1_000 + LEASE_MS);
    expect(leases.wanted('p')).toBe(15);
  });

  it('requests arriving while a take of several is on its way ask for one token each', () => {
    const leases = new TokenLeases(1_000);
    arrive(leases, 40, 1_000);
    arrive(leases, 1, 1_100);
    expect(leases.wanted('p')).toBe(20);
    expect(leases.wanted('p')).toBe(1);
    expect(leases.granted('p', 1, bucket(1, 900), 1_101).accepted).toBe(true);
    expect(leases.wanted('p')).toBe(1);
    // The take of 20 answers: 19 kept.
    expect(leases.granted('p', 20, bucket(20, 880), 1_102)).toEqual({ accepted: true, remaining: 899, retryAfterMs: 0 });
    expect(leases.wanted('p')).toBe(20);
  });

  it('what Redis grants partly is kept; what it refuses is refused', () => {
    const leases = new TokenLeases(1_000);
    arrive(leases, 40, 1_000);
    arrive(leases, 1, 1_100);
    expect(leases.granted('p', leases.wanted('p'), bucket(3, 0, 9), 1_100)).toEqual({ accepted: true, remaining: 2, retryAfterMs: 0 });
    expect(leases.spend('p', 1_101)).toEqual({ accepted: true, remaining: 1, retryAfterMs: 0 });
    // The last token held: the next request waits for the bucket, as Redis said.
    expect(leases.spend('p', 1_102)).toEqual({ accepted: true, remaining: 0, retryAfterMs: 7 });
    expect(leases.spend('p', 1_102)).toBeNull();
    expect(leases.granted('p', 1, bucket(0, 0, 7), 1_102)).toEqual({ accepted: false, remaining: 0, retryAfterMs: 7 });
  });

  it('tokens not spent within LEASE_MS are dropped', () => {
    const leases = new TokenLeases(1_000);
    arrive(leases, 40, 1_000);
    arrive(leases, 1, 1_100);
    leases.granted('p', leases.wanted('p'), bucket(20, 100), 1_100);
    expect(leases.spend('p', 1_100 + LEASE_MS - 1)).not.toBeNull();
    expect(leases.spend('p', 1_100 + LEASE_MS)).toBeNull();
  });
});
