import { Logger } from '@nestjs/common';
import { Processor, WorkerHost } from '@nestjs/bullmq';
import type { Job } from 'bullmq';
import { JobName, type JobPayloads, QueueName } from '../queue/queue.definitions.js';
import { CardGenerationService } from './card-generation.service.js';

@Processor(QueueName.Campaigns)
export class CardGenerationProcessor extends WorkerHost {
  private readonly logger = new Logger(CardGenerationProcessor.name);

  constructor(private readonly generation: CardGenerationService) {
    super();
  }

  async process(job: Job): Promise<void> {
    switch (job.name) {
      case JobName.GenerateCards: {
        const { campaignId } = job.data as JobPayloads[typeof JobName.GenerateCards];
        const started = Date.now();
        try {
          const outcome = await this.generation.generate(campaignId);
          this.logger.log({ job_id: job.id, campaign_id: campaignId, outcome, ms: Date.now() - started }, 'card generation finished');
        } catch (error) {
          // The last attempt records FAILED so the campaign does not stay IN_PROGRESS for ever.
          if (job.attemptsMade + 1 >= (job.opts.attempts ?? 1)) await this.generation.fail(campaignId, error instanceof Error ? error.message : String(error));
          throw error;
        }
        return;
      }
      // An iteration left in Redis by the job scheduler of earlier versions (the sweep is a timer now).
      case JobName.CardGenerationSweep: {
        const queued = await this.generation.sweep();
        if (queued > 0) this.logger.log({ campaigns: queued }, 'card generation sweep queued jobs');
        return;
      }
      default:
        throw new Error(`Queue ${QueueName.Campaigns} has no handler for job ${job.name}`);
    }
  }
}
