import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { getQueueToken } from '@nestjs/bullmq';
import type { JobState, JobsOptions, Queue } from 'bullmq';
import { JOB_OPTIONS, JOB_QUEUE, type JobName, type JobPayloads, QueueName } from './queue.definitions.js';

/** The only way code enqueues work, so the compiler checks each job's payload against its name. */
@Injectable()
export class JobQueueService {
  constructor(private readonly moduleRef: ModuleRef) {}

  async enqueue<N extends JobName>(name: N, data: JobPayloads[N], options: Pick<JobsOptions, 'jobId' | 'delay'> = {}): Promise<void> {
    await this.queue(JOB_QUEUE[name]).add(name, data, { ...JOB_OPTIONS[name], ...options });
  }

  /** Many jobs of one name in one round trip. */
  async enqueueMany<N extends JobName>(name: N, jobs: { data: JobPayloads[N]; jobId: string; delay?: number }[]): Promise<void> {
    if (!jobs.length) return;
    await this.queue(JOB_QUEUE[name]).addBulk(jobs.map((job) => ({ name, data: job.data, opts: { ...JOB_OPTIONS[name], jobId: job.jobId, delay: job.delay } })));
  }

  /**
   * The state of each of these jobs ('unknown': Redis has none with the id). The calls go out together: one
   * connection pipelines them, so a batch costs about one round trip.
   */
  async states(name: JobName, jobIds: string[]): Promise<Map<string, JobState | 'unknown'>> {
    const queue = this.queue(JOB_QUEUE[name]);
    const states = await Promise.all(jobIds.map((jobId) => queue.getJobState(jobId)));
    return new Map(jobIds.map((jobId, i) => [jobId, states[i]]));
  }

  /**
   * Enqueues these jobs afresh, for work the caller knows has no job left to run: a finished job still
   * retained under one of the ids (failed, or completed) is removed first, since addBulk would keep it and add
   * nothing. Not for ids whose job may be waiting or running (it would be removed and added again).
   */
  async replaceMany<N extends JobName>(name: N, jobs: { data: JobPayloads[N]; jobId: string }[]): Promise<void> {
    if (!jobs.length) return;
    const queue = this.queue(JOB_QUEUE[name]);
    await Promise.all(jobs.map((job) => queue.remove(job.jobId)));
    await this.enqueueMany(name, jobs);
  }

  /**
   * Makes sure a job with this id runs now or is running: the caller knows from its row that the work is
   * due and not done. A finished job with the id (completed or failed, still retained) is replaced; a
   * delayed one is promoted (its delay was set for a later time than the row now says).
   */
  async ensure<N extends JobName>(name: N, data: JobPayloads[N], jobId: string): Promise<void> {
    const queue = this.queue(JOB_QUEUE[name]);
    const state = await queue.getJobState(jobId);
    if (state === 'delayed') {
      // Promoting fails if the job became due and was taken meanwhile: then it runs anyway.
      await (await queue.getJob(jobId))?.promote().catch(() => undefined);
      return;
    }
    if (state === 'completed' || state === 'failed') await queue.remove(jobId);
    await queue.add(name, data, { ...JOB_OPTIONS[name], jobId });
  }

  queue(name: QueueName): Queue {
    return this.moduleRef.get<Queue>(getQueueToken(name), { strict: false });
  }

  async ping(): Promise<void> {
    const client = await this.queue(QueueName.Diagnostics).getBackend().client;
    await client.runCommand('ping', []);
  }
}
