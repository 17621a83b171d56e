import type { PendingPoints } from './pending-points.entity.js';

/**
 * The width of a due-moment cohort: entries of one project whose `activates_at` falls in the same window
 * share one delayed job, which fires at the window's end (so never before an entry is due, and at most this
 * much after). One job per entry cannot schedule a sale-day cohort: a million delayed jobs cost Redis
 * memory and a second of its time per 10,000.
 */
export const ACTIVATION_COHORT_MS = 250;

/** How many cohort ids an API process remembers having scheduled (it skips adding them again). */
const REMEMBERED_COHORTS = 10_000;

export interface ActivationCohort {
  projectId: string;
  /** The end of the window (epoch ms): when the job fires. */
  dueAt: number;
  jobId: string;
}

/** The job id of a cohort's job (BullMQ refuses `:` in a custom id). */
export function cohortJobId(projectId: string, dueAt: number): string {
  return `due_${projectId}_${dueAt}`;
}

/** The cohort an entry belongs to: its project and the end of the window its `activates_at` falls in (a window is [start, end)). */
export function cohortOf(projectId: string, activatesAt: Date): ActivationCohort {
  // The next window boundary strictly after the millisecond: PostgreSQL keeps microseconds, so an entry due
  // at 12:00:00.000400 shows as 12:00:00.000 here and must go to the window ending after it.
  const dueAt = (Math.floor(activatesAt.getTime() / ACTIVATION_COHORT_MS) + 1) * ACTIVATION_COHORT_MS;
  return { projectId, dueAt, jobId: cohortJobId(projectId, dueAt) };
}

/** The distinct cohorts of these entries. */
export function cohortsOf(entries: Pick<PendingPoints, 'projectId' | 'activatesAt'>[]): ActivationCohort[] {
  const cohorts = new Map<string, ActivationCohort>();
  for (const entry of entries) {
    const cohort = cohortOf(entry.projectId, entry.activatesAt);
    cohorts.set(cohort.jobId, cohort);
  }
  return [...cohorts.values()];
}

/**
 * The cohorts this process scheduled whose moment has not come: at 500 orders a second most orders fall in
 * a cohort already scheduled, and adding its job again would cost Redis a round trip for nothing. A
 * forgotten one (the memory is bounded) is only added again, which BullMQ ignores for an existing id.
 */
export class RecentCohorts {
  private readonly due = new Map<string, number>();

  /**
   * The cohorts not yet scheduled by this process, and those whose moment has passed (an entry that commits
   * after its cohort's job ran needs the job again: BullMQ removed the finished one, so it runs at once);
   * remembers them.
   */
  unscheduled(cohorts: ActivationCohort[], now = Date.now()): ActivationCohort[] {
    if (this.due.size >= REMEMBERED_COHORTS) this.forget(now);
    const fresh = cohorts.filter((cohort) => cohort.dueAt <= now || !this.due.has(cohort.jobId));
    for (const cohort of fresh) this.due.set(cohort.jobId, cohort.dueAt);
    return fresh;
  }

  /** Redis refused them: they are not scheduled after all. */
  failed(cohorts: ActivationCohort[]): void {
    for (const cohort of cohorts) this.due.delete(cohort.jobId);
  }

  private forget(now: number): void {
    for (const [jobId, dueAt] of this.due) if (dueAt <= now) this.due.delete(jobId);
    // Still full (cohorts far in the future): start again; at worst some are added twice.
    if (this.due.size >= REMEMBERED_COHORTS) this.due.clear();
  }
}
