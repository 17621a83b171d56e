import type { JobsOptions } from 'bullmq';

/**
 * The one registry of queues, jobs and payloads. Payloads carry ids only: the database row is the
 * truth, and secrets or whole objects never travel through Redis.
 */
export const QueueName = {
  Diagnostics: 'diagnostics',
  Campaigns: 'campaigns',
  PendingPoints: 'pending-points',
  Webhooks: 'webhooks',
} as const;
export type QueueName = (typeof QueueName)[keyof typeof QueueName];

export const JobName = {
  DiagnosticPing: 'diagnostic-ping',
  GenerateCards: 'generate-cards',
  CardGenerationSweep: 'card-generation-sweep',
  ActivatePendingPoints: 'activate-pending-points',
  ActivateDuePendingPoints: 'activate-due-pending-points',
  DeliverWebhook: 'deliver-webhook',
} as const;
export type JobName = (typeof JobName)[keyof typeof JobName];

export interface JobPayloads {
  [JobName.DiagnosticPing]: { pingId: string };
  [JobName.GenerateCards]: { campaignId: string };
  [JobName.CardGenerationSweep]: Record<string, never>;
  // One entry's job: queued only by versions before activation by cohort (issue 40); still run after an upgrade.
  [JobName.ActivatePendingPoints]: { pendingPointsId: string };
  // A due-moment cohort's job (job id from cohortJobId): activates the entries due by then; `lane` > 0 is a
  // second lane a cohort's first job starts when it finds more than a batch due.
  [JobName.ActivateDuePendingPoints]: { projectId: string; dueAt: number; lane?: number };
  // projectId: absent from jobs queued by versions before issue 26's fair shares.
  [JobName.DeliverWebhook]: { deliveryId: string; distributionId: string; projectId?: string };
}

/**
 * Which queue carries each job; a new JobName does not compile until it is placed here, nor until the
 * queue's processor has a handler for it (JobHandlers).
 */
export const JOB_QUEUE = {
  [JobName.DiagnosticPing]: QueueName.Diagnostics,
  [JobName.GenerateCards]: QueueName.Campaigns,
  [JobName.CardGenerationSweep]: QueueName.Campaigns,
  [JobName.ActivatePendingPoints]: QueueName.PendingPoints,
  [JobName.ActivateDuePendingPoints]: QueueName.PendingPoints,
  [JobName.DeliverWebhook]: QueueName.Webhooks,
} as const satisfies { readonly [N in JobName]: QueueName };

/** The jobs queue Q carries. */
export type JobsOf<Q extends QueueName> = { [N in JobName]: (typeof JOB_QUEUE)[N] extends Q ? N : never }[JobName];

/** Retries, backoff and retention for every job unless the job says otherwise. */
export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1_000 },
  removeOnComplete: { age: 24 * 3600, count: 10_000 },
  removeOnFail: { age: 14 * 24 * 3600 },
};

/**
 * Per-job overrides. A finished activation job is removed at once: the entry rows record the outcome, and a
 * cohort's job id added again after its job ran must make a new job (an entry that committed late), not
 * find the old one.
 */
export const JOB_OPTIONS: { readonly [N in JobName]?: JobsOptions } = {
  [JobName.ActivatePendingPoints]: { removeOnComplete: true },
  [JobName.ActivateDuePendingPoints]: { removeOnComplete: true },
  // A delivery's retries and the attempts asked for by hand (job id = delivery id), rescheduled in place for
  // each further retry; the row records the attempts, so a finished job has nothing more to say.
  [JobName.DeliverWebhook]: { removeOnComplete: true },
};
