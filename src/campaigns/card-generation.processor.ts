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
        // The job names the campaign that asked, but the turns go to whichever campaign is next in the
        // round-robin between projects (CardGenerationService.drain), so a job may serve other projects'
        // campaigns first and end with its own finished by another worker. It ends when no campaign is
        // left to work on, or early when the worker closes (the sweep re-queues what is left).
        const { campaignId } = job.data as JobPayloads[typeof JobName.GenerateCards];
        const started = Date.now();
        const turns = await this.generation.drain(() => this.worker.closing !== undefined);
        this.logger.log({ job_id: job.id, campaign_id: campaignId, turns, ms: Date.now() - started }, 'card generation job finished');
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
