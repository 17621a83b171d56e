/** The requests in flight a project starts with in a worker, and goes back to after a slow attempt. */
export const INITIAL_WINDOW = 2;
/** Slow projects together hold at most this part of a worker's dispatcher slots. */
const SLOW_PART = 0.5;
/** A window not grown for this long goes back to INITIAL_WINDOW: a project earns it again after a pause. */
const WINDOW_IDLE_MS = 10_000;
/** A project stays slow this long after its last slow attempt (at least 3 timeouts). */
const SLOW_FOR_MS = 60_000;
/** Projects whose window or slowness is remembered, at most per worker; beyond, the least recent is forgotten. */
const PROJECTS_MAX = 10_000;

/**
 * How many of a worker's webhook slots each project may hold (issue 36). Per worker:
 *
 * - **The share adapts to the projects with work.** With n projects that have due deliveries or requests
 *   in flight, each may have at most `slots / (n + 1)` in flight (and never more than
 *   WEBHOOK_PROJECT_MAX_IN_FLIGHT), so that n busy projects whose targets all start hanging hold at most
 *   n/(n+1) of the slots. The claim computes it from its walk of the projects (DispatchRepository), and
 *   keeps it here for the queue jobs' attempts.
 * - **A project earns its share.** Its window of requests in flight starts at INITIAL_WINDOW and grows by
 *   one with each attempt that ended within half the timeout (answered or refused), up to the share; it
 *   shrinks by one with each attempt that took longer (never below the start), and goes back to the start
 *   after 10 s without a timely attempt. A project whose targets hang, new to the worker or back after a
 *   pause, thus holds two slots until its first attempts time out, however many such projects arrive one
 *   after the other (a share computed when fewer projects had work cannot be taken back once its requests
 *   hang); projects busy at the same time are counted by the share. A project with one target that hangs
 *   beside others that answer keeps the window its answers earn (one less per timeout, one more per timely
 *   answer): its own targets share its share, as before.
 * - **Slow projects share half.** A project one of whose attempts took half the timeout or more (no answer
 *   at all, usually) is slow for a minute after it. Slow projects together get at most half of the slots,
 *   in turns: each claim gives each of them its part of what is free of that half, and their queue jobs
 *   leave their deliveries to the claim. However many projects hang, the others keep half of every worker.
 */
export class ProjectShares {
  /** The share the last claim computed, for the queue jobs' attempts. */
  share: number;
  /** Windows above INITIAL_WINDOW and when they last grew, least recently grown first. */
  private readonly windows = new Map<string, { size: number; at: number }>();
  private readonly slowUntil = new Map<string, number>();
  private turn = 0;

  constructor(
    readonly slots: number,
    readonly maxShare: number,
    private readonly timeoutMs: number,
  ) {
    this.share = maxShare;
  }

  /** An attempt of `project` ended after `durationMs`. */
  observe(project: string, durationMs: number): void {
    const window = this.window(project);
    if (durationMs >= this.timeoutMs / 2) {
      remember(this.slowUntil, project, Date.now() + Math.max(SLOW_FOR_MS, 3 * this.timeoutMs));
      // Not below the start; kept as it was grown (a slow attempt is not a timely one).
      if (window > INITIAL_WINDOW) this.windows.set(project, { size: window - 1, at: this.windows.get(project)?.at ?? Date.now() });
    } else {
      remember(this.windows, project, { size: Math.min(this.maxShare, window + 1), at: Date.now() });
    }
  }

  /** The requests in flight `project` may have, as far as its own attempts go (the share applies too). */
  window(project: string): number {
    const window = this.windows.get(project);
    return window && Date.now() - window.at < WINDOW_IDLE_MS ? window.size : INITIAL_WINDOW;
  }

  /** Whether `project` counts as slow (its queue jobs then leave their deliveries to the dispatcher). */
  isSlow(project: string): boolean {
    return (this.slowUntil.get(project) ?? 0) > Date.now();
  }

  /**
   * The requests in flight each project in flight or slow may have after the next claim, given the
   * worker's requests in flight per project: its window, and for a slow project no more than its own plus
   * its part of what the slow projects hold below their half (the remainder goes to a different few each
   * claim). The claim gives a project absent from it INITIAL_WINDOW, and the share applies to all.
   */
  caps(inFlight: Map<string, number>): Map<string, number> {
    const caps = new Map([...inFlight.keys()].map((project) => [project, this.window(project)]));
    const now = Date.now();
    const slow: string[] = [];
    for (const [project, until] of this.slowUntil) {
      if (until > now) slow.push(project);
      else this.slowUntil.delete(project);
    }
    if (!slow.length) return caps;
    const held = slow.reduce((sum, project) => sum + (inFlight.get(project) ?? 0), 0);
    const free = Math.max(0, Math.floor(this.slots * SLOW_PART) - held);
    const each = Math.floor(free / slow.length);
    const extra = free % slow.length;
    // The remainder goes to the next `extra` projects after those that had it last time.
    const start = this.turn % slow.length;
    this.turn += Math.max(1, extra);
    for (let k = 0; k < slow.length; k += 1) {
      const project = slow[(start + k) % slow.length];
      const part = (inFlight.get(project) ?? 0) + each + (k < extra ? 1 : 0);
      caps.set(project, Math.min(this.window(project), part));
    }
    return caps;
  }
}

/** Sets `key` as the most recent entry of `map`, forgetting the least recent beyond PROJECTS_MAX. */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > PROJECTS_MAX) map.delete(map.keys().next().value as string);
}
