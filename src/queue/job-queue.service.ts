import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { getQueueToken } from '@nestjs/bullmq';
import type { JobsOptions, Queue } from 'bullmq';
import { JOB_QUEUE, type JobName, type JobPayloads, QueueName } from './queue.definitions.js';

/** The only way code enqueues work, so the compiler checks each job's payload against its name. */
@Injectable()
export class JobQueueService {
  constructor(private readonly moduleRef: ModuleRef) {}

  async enqueue<N extends JobName>(name: N, data: JobPayloads[N], options: Pick<JobsOptions, 'jobId' | 'delay'> = {}): Promise<void> {
    await this.queue(JOB_QUEUE[name]).add(name, data, options);
  }

  queue(name: QueueName): Queue {
    return this.moduleRef.get<Queue>(getQueueToken(name), { strict: false });
  }

  async ping(): Promise<void> {
    const client = await this.queue(QueueName.Diagnostics).getBackend().client;
    await client.runCommand('ping', []);
  }
}
