import { ACTIVATION_COHORT_MS, cohortJobId, cohortOf, cohortsOf, RecentCohorts } from './activation-cohorts.js';

const at = (ms: number) => new Date(ms);

describe('activation cohorts', () => {
  it('an entry goes to the window ending strictly after its millisecond: never due after its job fires', () => {
    const W = ACTIVATION_COHORT_MS;
    expect(cohortOf('p', at(5 * W)).dueAt).toBe(6 * W);
    expect(cohortOf('p', at(5 * W + 1)).dueAt).toBe(6 * W);
    expect(cohortOf('p', at(6 * W - 1)).dueAt).toBe(6 * W);
    expect(cohortOf('p', at(6 * W)).dueAt).toBe(7 * W);
    for (const ms of [0, 1, 999, 1_000, 123_456_789]) {
      const { dueAt } = cohortOf('p', at(ms));
      expect(dueAt).toBeGreaterThan(ms);
      expect(dueAt - ms).toBeLessThanOrEqual(ACTIVATION_COHORT_MS);
    }
  });

  it('one job per project and window, with an id BullMQ accepts', () => {
    const W = ACTIVATION_COHORT_MS;
    const cohorts = cohortsOf([
      { projectId: 'proj_a', activatesAt: at(40 * W + 1) },
      { projectId: 'proj_a', activatesAt: at(41 * W - 1) },
      { projectId: 'proj_b', activatesAt: at(40 * W + 1) },
      { projectId: 'proj_a', activatesAt: at(41 * W) },
    ]);
    expect(cohorts.map((c) => c.jobId)).toEqual([cohortJobId('proj_a', 41 * W), cohortJobId('proj_b', 41 * W), cohortJobId('proj_a', 42 * W)]);
    expect(cohorts.every((c) => !c.jobId.includes(':'))).toBe(true);
  });

  it('a process adds a cohort once until its moment, again after it (a late entry), and again if Redis refused it', () => {
    const recent = new RecentCohorts();
    const soon = cohortOf('p', at(50_000));
    expect(recent.unscheduled([soon], 10_000)).toEqual([soon]);
    expect(recent.unscheduled([soon], 20_000)).toEqual([]);
    recent.failed([soon]);
    expect(recent.unscheduled([soon], 20_000)).toEqual([soon]);
    expect(recent.unscheduled([soon], soon.dueAt)).toEqual([soon]);
  });

  it('remembers a bounded number of cohorts, forgetting the past ones first', () => {
    const recent = new RecentCohorts();
    const past = Array.from({ length: 9_999 }, (_, i) => cohortOf(`p${i}`, at(1_000)));
    const kept = cohortOf('k', at(90_000));
    expect(recent.unscheduled([...past, kept], 0)).toHaveLength(10_000);
    // Full: making room forgets the 9,999 whose moment has passed, not the one still to come.
    const next = cohortOf('q', at(90_000));
    expect(recent.unscheduled([next], 10_000)).toEqual([next]);
    expect(recent.unscheduled([kept, next], 10_000)).toEqual([]);
  });

  it('full of cohorts still to come, it starts again rather than grow: at worst one is added twice', () => {
    const recent = new RecentCohorts();
    const future = Array.from({ length: 10_000 }, (_, i) => cohortOf(`p${i}`, at(90_000)));
    expect(recent.unscheduled(future, 0)).toHaveLength(10_000);
    const next = cohortOf('q', at(90_000));
    expect(recent.unscheduled([next], 10_000)).toEqual([next]);
    expect(recent.unscheduled([future[0]], 10_000)).toEqual([future[0]]);
    expect(recent.unscheduled([next], 10_000)).toEqual([]);
  });
});
