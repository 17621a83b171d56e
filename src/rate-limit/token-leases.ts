import type { TokenBucketResult } from './token-bucket.store.js';

/** How long tokens taken ahead stay usable, and the window in which a project's requests are counted. */
export const LEASE_MS = 100;
/** Tokens taken ahead at most at once, whatever the rate. */
const MAX_LEASE = 100;

/** What one request learns: accepted or not, what is left, and when the next one would be accepted. */
export interface RequestAnswer {
  accepted: boolean;
  remaining: number;
  retryAfterMs: number;
}

interface Lease {
  /** Tokens taken from Redis and not spent yet. */
  tokens: number;
  /** What Redis said was left after they were taken. */
  remaining: number;
  /** When Redis said its next token would come (epoch ms; now while it had some left). */
  retryAt: number;
  expiresAt: number;
}

interface Seen {
  since: number;
  count: number;
  previous: number;
}

/**
 * Tokens one API process takes from a project's Redis bucket ahead of its requests, so that a project
 * sending many requests costs a round trip to Redis per several of them rather than per request. The
 * bucket stays the one truth: a token is spent only after Redis granted it, so the processes together
 * never accept more than the bucket allows. What is taken ahead is sized on the project's requests to
 * this process in the last LEASE_MS (half of them, at most a twentieth of a second's tokens and
 * MAX_LEASE), so it is spent within about LEASE_MS; below 40 requests a second per project, and for a
 * project that is not busy here, it is one token per request, exactly as without leases. Tokens left when
 * a lease ends (LEASE_MS after it was taken) are dropped: the bucket refills them in their time, and
 * until then the project gets at most that many fewer requests through — never more.
 */
export class TokenLeases {
  private readonly maxLease: number;
  private readonly leases = new Map<string, Lease>();
  private readonly seen = new Map<string, Seen>();
  /** Projects with a take of several tokens on its way: the requests meanwhile ask for one each. */
  private readonly asking = new Set<string>();

  /**
   * `capacity`: the bucket's size, the most a request may be told is left. A lease taken earlier adds its
   * tokens to what Redis says now, and Redis may have refilled meanwhile: the sum is not shown above it.
   */
  constructor(
    perSecond: number,
    private readonly capacity = 2 * perSecond,
  ) {
    this.maxLease = Math.max(1, Math.min(MAX_LEASE, Math.floor(perSecond / 20)));
  }

  /** A token taken ahead, if this process holds one for the project; counts the request either way. */
  spend(projectId: string, now: number): RequestAnswer | null {
    this.count(projectId, now);
    const lease = this.leases.get(projectId);
    if (!lease) return null;
    if (lease.expiresAt <= now || lease.tokens < 1) {
      this.leases.delete(projectId);
      return null;
    }
    lease.tokens -= 1;
    const remaining = Math.min(this.capacity, lease.remaining + lease.tokens);
    return { accepted: true, remaining, retryAfterMs: remaining > 0 ? 0 : Math.max(0, lease.retryAt - now) };
  }

  /**
   * How many tokens to ask Redis for now; then `granted` (or `failed`) must follow. Several only when no
   * other take of several is on its way for the project: requests arriving together must not each take a
   * lease.
   */
  wanted(projectId: string): number {
    if (this.maxLease === 1 || this.asking.has(projectId)) return 1;
    const previous = this.seen.get(projectId)?.previous ?? 0;
    const wanted = Math.max(1, Math.min(this.maxLease, Math.floor(previous / 2)));
    if (wanted > 1) this.asking.add(projectId);
    return wanted;
  }

  /** Redis did not answer a take. */
  failed(projectId: string, wanted: number): void {
    if (wanted > 1) this.asking.delete(projectId);
  }

  /** Redis's answer to a take of `wanted`: one token for this request, the others kept (with any left). */
  granted(projectId: string, wanted: number, bucket: TokenBucketResult, now: number): RequestAnswer {
    if (wanted > 1) this.asking.delete(projectId);
    if (bucket.granted < 1) return { accepted: false, remaining: 0, retryAfterMs: bucket.retryAfterMs };
    const spare = bucket.granted - 1;
    const held = this.leases.get(projectId);
    const tokens = spare + (held && held.expiresAt > now ? held.tokens : 0);
    if (tokens > 0) this.leases.set(projectId, { tokens, remaining: bucket.remaining, retryAt: now + bucket.retryAfterMs, expiresAt: now + LEASE_MS });
    else this.leases.delete(projectId);
    const remaining = Math.min(this.capacity, bucket.remaining + tokens);
    return { accepted: true, remaining, retryAfterMs: remaining > 0 ? 0 : bucket.retryAfterMs };
  }

  private count(projectId: string, now: number): void {
    if (this.maxLease === 1) return;
    const seen = this.seen.get(projectId);
    if (seen && now - seen.since < LEASE_MS) {
      seen.count += 1;
      return;
    }
    // A new window; the one before counts only if it was the last one.
    const previous = seen && now - seen.since < 2 * LEASE_MS ? seen.count : 0;
    this.seen.set(projectId, { since: now, count: 1, previous });
  }
}
