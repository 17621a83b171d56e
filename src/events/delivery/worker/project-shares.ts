/** Slow projects together hold at most this part of a worker's dispatcher slots. */
const SLOW_PART = 0.5;
/** A project stays slow this long after its last slow attempt (at least 3 timeouts). */
const SLOW_FOR_MS = 60_000;
/** Slow projects remembered at most per worker; beyond, the one slow longest ago is forgotten. */
const SLOW_PROJECTS_MAX = 1_000;

/**
 * How much of a worker's webhook slots each project may hold (issue 36). Two rules, both per worker:
 *
 * - **The share adapts to the projects with work.** With n projects that have due deliveries or requests
 *   in flight, each may have at most `slots / (n + 1)` in flight (and never more than
 *   WEBHOOK_PROJECT_MAX_IN_FLIGHT): n projects whose targets hang hold at most n/(n+1) of the slots, and a
 *   project that comes next always finds some free. The claim computes it from its walk of the projects
 *   (DispatchRepository), and keeps it here for the queue jobs' attempts.
 * - **Slow projects share half.** A project one of whose attempts took half the timeout or more (no answer
 *   at all, usually) is slow for a minute after it. Slow projects together get at most half of the slots,
 *   in turns: each claim gives each of them its part of what is free of that half (`slowCaps`), and their
 *   queue jobs leave their deliveries to the claim. However many projects hang, the others keep half of
 *   every worker once the first requests of the hanging ones went unanswered; before, the first rule
 *   bounds them.
 */
export class ProjectShares {
  /** The share the last claim computed, for the queue jobs' attempts. */
  share: number;
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
    if (durationMs < this.timeoutMs / 2) return;
    // Re-inserted, so that the map stays in the order of the last slow attempt.
    this.slowUntil.delete(project);
    this.slowUntil.set(project, Date.now() + Math.max(SLOW_FOR_MS, 3 * this.timeoutMs));
    if (this.slowUntil.size > SLOW_PROJECTS_MAX) this.slowUntil.delete(this.slowUntil.keys().next().value as string);
  }

  isSlow(project: string): boolean {
    return (this.slowUntil.get(project) ?? 0) > Date.now();
  }

  /**
   * The requests in flight each slow project may have after the next claim (its own, plus its part of what
   * the slow projects hold below their half; the remainder goes to a different few each claim), given the
   * worker's requests in flight per project. Projects that are not slow are absent.
   */
  slowCaps(inFlight: Map<string, number>): Map<string, number> {
    const now = Date.now();
    const slow: string[] = [];
    for (const [project, until] of this.slowUntil) {
      if (until > now) slow.push(project);
      else this.slowUntil.delete(project);
    }
    const caps = new Map<string, number>();
    if (!slow.length) return caps;
    const held = slow.reduce((sum, project) => sum + (inFlight.get(project) ?? 0), 0);
    const free = Math.max(0, Math.floor(this.slots * SLOW_PART) - held);
    const each = Math.floor(free / slow.length);
    const start = (this.turn += 1) % slow.length;
    for (let k = 0; k < slow.length; k += 1) {
      const project = slow[(start + k) % slow.length];
      caps.set(project, (inFlight.get(project) ?? 0) + each + (k < free % slow.length ? 1 : 0));
    }
    return caps;
  }
}
