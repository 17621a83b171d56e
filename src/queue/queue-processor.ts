import { Processor, WorkerHost } from '@nestjs/bullmq';
import type { Type } from '@nestjs/common';
import type { Job } from 'bullmq';
import type { JobPayloads, JobsOf, QueueName } from './queue.definitions.js';

/** One handler per job of queue Q (JOB_QUEUE): a job without a handler, or a handler of another queue's job, does not compile. */
export type JobHandlers<Q extends QueueName> = {
  readonly [N in JobsOf<Q>]: (job: Job<JobPayloads[N], void, N>, token: string | undefined) => Promise<void>;
};

/** The options of @Processor (BullMQ's worker options: concurrency, lock duration…). */
type NestWorkerOptions = Parameters<typeof Processor>[1];

type AnyHandler = (job: Job, token: string | undefined) => Promise<void>;

/**
 * The processor of queue Q: BullMQ hands each job to the handler of its name. A job whose name this version
 * has no handler for (left in Redis by another version) fails, as it always did.
 */
export abstract class QueueProcessor<Q extends QueueName> extends WorkerHost {
  /** The queue, for the compiler only (WorkerFeature, QueueWorker). */
  declare readonly queue: Q;
  protected abstract readonly handlers: JobHandlers<Q>;

  async process(job: Job, token?: string): Promise<void> {
    const handlers = this.handlers as unknown as Readonly<Record<string, AnyHandler>>;
    if (!Object.hasOwn(handlers, job.name)) throw new Error(`Queue ${job.queueName} has no handler for job ${job.name}`);
    await handlers[job.name](job, token);
  }
}

/** @Processor for a QueueProcessor: the class must be the processor of this very queue. */
export function QueueWorker<Q extends QueueName>(queue: Q, options?: NestWorkerOptions): (target: Type<QueueProcessor<Q>>) => void {
  return (target) => (options ? Processor(queue, options) : Processor(queue))(target);
}
