import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import type { SweepDefinition } from '../../queue/sweeps.js';
import { WorkerSweep } from '../../queue/worker-feature.js';
import { CampaignDeletionService } from './campaign-deletion.service.js';

/**
 * The worker's forced campaign deletions (CampaignDeletionService): every CAMPAIGN_DELETION_SWEEP_MS, each
 * worker takes turns of the deletions in progress until none is left that another worker holds. It is the
 * only path, no queue job: a deletion starts within one interval of its request, and one a worker left
 * halfway (it died, its batch rolled back) goes on at the next run, in any worker.
 */
@Injectable()
@WorkerSweep()
export class CampaignDeletionSweep implements SweepDefinition {
  readonly name = 'campaign-deletion';
  readonly everyMs: number;

  constructor(
    config: AppConfig,
    private readonly deletions: CampaignDeletionService,
  ) {
    this.everyMs = config.sweeps.campaignDeletionMs;
  }

  run(): Promise<number> {
    return this.deletions.drain();
  }

  stop(): void {
    this.deletions.stop();
  }
}
