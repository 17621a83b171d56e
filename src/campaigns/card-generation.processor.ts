import { Logger } from '@nestjs/common';
import { JobName, QueueName } from '../queue/queue.definitions.js';
import { type JobHandlers, QueueProcessor, QueueWorker } from '../queue/queue-processor.js';
import { CardGenerationService } from './card-generation.service.js';

@QueueWorker(QueueName.Campaigns)
export class CardGenerationProcessor extends QueueProcessor<typeof QueueName.Campaigns> {
  private readonly logger = new Logger(CardGenerationProcessor.name);

  constructor(private readonly generation: CardGenerationService) {
    super();
  }

  protected readonly handlers: JobHandlers<typeof QueueName.Campaigns> = {
    // The job names the campaign that asked, but the turns go to whichever campaign is next in the
    // round-robin between projects (CardGenerationService.drain), so a job may serve other projects'
    // campaigns first and end with its own finished by another worker. It ends when no campaign is
    // left to work on, or early when the worker closes (the sweep re-queues what is left).
    [JobName.GenerateCards]: async (job) => {
      const { campaignId } = job.data;
      const started = Date.now();
      const turns = await this.generation.drain(() => this.worker.closing !== undefined);
      this.logger.log({ job_id: job.id, campaign_id: campaignId, turns, ms: Date.now() - started }, 'card generation job finished');
    },
    // An iteration left in Redis by the job scheduler of earlier versions (the sweep is a timer now).
    [JobName.CardGenerationSweep]: async () => {
      const queued = await this.generation.sweep();
      if (queued > 0) this.logger.log({ campaigns: queued }, 'card generation sweep queued jobs');
    },
  };
}
