import { Injectable, Logger } from '@nestjs/common';
import { base62Id } from '../common/ids.js';
import { JobQueueService } from '../queue/job-queue.service.js';
import { JOB_QUEUE, JobName } from '../queue/queue.definitions.js';
import { CampaignRepository } from './campaign.repository.js';
import { cardJobId } from './campaigns.service.js';
import { CodeGenerator } from './code-config.js';
import { VoucherRepository } from './voucher.repository.js';

/** Cards per INSERT: large enough to amortise round trips, small enough to keep transactions short. */
export const CARD_BATCH_SIZE = 10_000;
/**
 * Batches in flight at once. PostgreSQL maintains the three card indexes in the backend that inserts,
 * so two connections use both cores of a small machine (bench/README.md has the figures).
 */
export const CARD_LANES = 2;
/** Batches in a row that add no card before generation gives up (the code space is used up). */
const MAX_FRUITLESS_BATCHES = 20;

export type GenerationOutcome = 'done' | 'failed' | 'skipped';

/** Worker side of campaign creation: makes the campaign's loyalty cards. */
@Injectable()
export class CardGenerationService {
  private readonly logger = new Logger(CardGenerationService.name);

  constructor(
    private readonly campaigns: CampaignRepository,
    private readonly vouchers: VoucherRepository,
    private readonly jobs: JobQueueService,
  ) {}

  /**
   * Makes the cards still missing (target − made so far), so a retried or duplicated job continues
   * where the last one stopped. Codes drawn in this job are distinct among themselves, so the lanes
   * never race for one code; a code taken earlier in the project is skipped and drawn again.
   */
  async generate(campaignId: string): Promise<GenerationOutcome> {
    const campaign = await this.campaigns.findForGeneration(campaignId);
    if (!campaign || campaign.vouchersGenerationStatus !== 'IN_PROGRESS') return 'skipped';
    const codes = new CodeGenerator(campaign.voucher.code_config);
    const drawn = new Set<string>();
    let unassigned = campaign.vouchersTarget - campaign.vouchersCount;
    let skipTaken = false;
    let outcome: GenerationOutcome | null = null;

    const lane = async (): Promise<void> => {
      let fruitless = 0;
      while (unassigned > 0 && outcome === null) {
        let left = Math.min(unassigned, CARD_BATCH_SIZE);
        unassigned -= left;
        while (left > 0 && outcome === null) {
          const batch = codes.distinct(left, drawn);
          const result = await this.vouchers.insertCards(
            { campaignId, projectId: campaign.projectId, initialPoints: campaign.voucher.loyalty_card.points, ids: batch.map(() => base62Id('v_', 32)), codes: batch },
            skipTaken,
          );
          if (result.stopped) {
            outcome = 'skipped';
            return;
          }
          // Once the project's codes collide with ours, go straight to the statement that skips them.
          skipTaken ||= result.collided;
          left -= result.inserted;
          fruitless = result.inserted === 0 ? fruitless + 1 : 0;
          if (fruitless >= MAX_FRUITLESS_BATCHES) outcome = 'failed';
        }
      }
    };
    await Promise.all(Array.from({ length: CARD_LANES }, lane));

    if (outcome === 'failed') return this.fail(campaignId, `no new unique code in ${MAX_FRUITLESS_BATCHES} batches: the code space of voucher.code_config is used up`);
    if (outcome === 'skipped') return 'skipped';
    await this.campaigns.finishGeneration(campaignId, 'DONE');
    return 'done';
  }

  async fail(campaignId: string, reason: string): Promise<GenerationOutcome> {
    this.logger.error({ campaign_id: campaignId, reason }, 'card generation failed');
    await this.campaigns.finishGeneration(campaignId, 'FAILED', reason);
    return 'failed';
  }

  /** Re-queues generation for campaigns still IN_PROGRESS whose job is missing (Redis was down at create). */
  async sweep(): Promise<number> {
    const ids = await this.campaigns.idsInProgress(1_000);
    for (const campaignId of ids) await this.jobs.ensure(JobName.GenerateCards, { campaignId }, cardJobId(campaignId));
    return ids.length;
  }

  /**
   * Removes the BullMQ job scheduler that ran this sweep in earlier versions (the sweep now runs on a timer
   * of the worker, see SweepTimers); iterations it left behind are still handled by the processor.
   */
  async removeLegacyScheduler(): Promise<void> {
    await this.jobs.queue(JOB_QUEUE[JobName.CardGenerationSweep]).removeJobScheduler(JobName.CardGenerationSweep);
  }
}
