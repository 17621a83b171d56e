import { Logger } from '@nestjs/common';
import { JobName, QueueName } from '../queue/queue.definitions.js';
import { type JobHandlers, QueueProcessor, QueueWorker } from '../queue/queue-processor.js';
import { DiagnosticsService } from './diagnostics.service.js';

@QueueWorker(QueueName.Diagnostics)
export class DiagnosticPingProcessor extends QueueProcessor<typeof QueueName.Diagnostics> {
  private readonly logger = new Logger(DiagnosticPingProcessor.name);

  constructor(private readonly diagnostics: DiagnosticsService) {
    super();
  }

  protected readonly handlers: JobHandlers<typeof QueueName.Diagnostics> = {
    [JobName.DiagnosticPing]: async (job) => {
      const { pingId } = job.data;
      const done = await this.diagnostics.processPing(pingId);
      this.logger.log({ job_id: job.id, ping_id: pingId, skipped: !done }, 'diagnostic ping processed');
    },
  };
}
