import type { Job } from 'bullmq';
import { JobName, QueueName } from './queue.definitions.js';
import { type JobHandlers, QueueProcessor } from './queue-processor.js';

class CampaignsProbe extends QueueProcessor<typeof QueueName.Campaigns> {
  readonly calls: string[] = [];

  protected readonly handlers: JobHandlers<typeof QueueName.Campaigns> = {
    [JobName.GenerateCards]: async (job, token) => void this.calls.push(`${job.name}:${job.data.campaignId}:${token}`),
    [JobName.CardGenerationSweep]: async (job) => void this.calls.push(job.name),
  };
}

const job = (name: string, data: object = {}) => ({ name, data, queueName: QueueName.Campaigns }) as unknown as Job;

describe('QueueProcessor', () => {
  it('hands each job to the handler of its name, with the lock token', async () => {
    const probe = new CampaignsProbe();
    await probe.process(job(JobName.GenerateCards, { campaignId: 'camp_1' }), 'tok');
    await probe.process(job(JobName.CardGenerationSweep));
    expect(probe.calls).toEqual(['generate-cards:camp_1:tok', 'card-generation-sweep']);
  });

  it("fails a job its queue has no handler for (another queue's, or a name from another version)", async () => {
    const probe = new CampaignsProbe();
    await expect(probe.process(job(JobName.DiagnosticPing))).rejects.toThrow('Queue campaigns has no handler for job diagnostic-ping');
    await expect(probe.process(job('toString'))).rejects.toThrow('Queue campaigns has no handler for job toString');
    expect(probe.calls).toEqual([]);
  });
});
