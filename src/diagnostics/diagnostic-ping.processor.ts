import { Logger } from '@nestjs/common';
import { Processor, WorkerHost } from '@nestjs/bullmq';
import type { Job } from 'bullmq';
import { JobName, type JobPayloads, QueueName } from '../queue/queue.definitions.js';
import { DiagnosticsService } from './diagnostics.service.js';

@Processor(QueueName.Diagnostics)
export class DiagnosticPingProcessor extends WorkerHost {
  private readonly logger = new Logger(DiagnosticPingProcessor.name);

  constructor(private readonly diagnostics: DiagnosticsService) {
    super();
  }

  async process(job: Job): Promise<void> {
    switch (job.name) {
      case JobName.DiagnosticPing: {
        const { pingId } = job.data as JobPayloads[typeof JobName.DiagnosticPing];
        const done = await this.diagnostics.processPing(pingId);
        this.logger.log({ job_id: job.id, ping_id: pingId, skipped: !done }, 'diagnostic ping processed');
        return;
      }
      default:
        throw new Error(`Queue ${QueueName.Diagnostics} has no handler for job ${job.name}`);
    }
  }
}
