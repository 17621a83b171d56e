import { Injectable, Logger } from '@nestjs/common';
import { base62Id } from '../common/ids.js';
import { JobQueueService } from '../queue/job-queue.service.js';
import { JobName } from '../queue/queue.definitions.js';
import { CampaignRepository } from './campaign.repository.js';
import { cardJobId } from './campaigns.service.js';
import { CodeGenerator } from './code-config.js';
import { VoucherRepository } from './voucher.repository.js';

/** Cards per INSERT: large enough to amortise round trips, small enough to keep each lock short. */
export const CARD_BATCH_SIZE = 20_000;
/** Batches in a row that add no card before generation gives up (the code space is used up). */
const MAX_FRUITLESS_BATCHES = 20;
export const SWEEP_EVERY_MS = 60_000;

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
   * where the last one stopped rather than starting over. Colliding codes are drawn again.
   */
  async generate(campaignId: string): Promise<GenerationOutcome> {
    const campaign = await this.campaigns.findForGeneration(campaignId);
    if (!campaign || campaign.vouchersGenerationStatus !== 'IN_PROGRESS') return 'skipped';
    const codes = new CodeGenerator(campaign.voucher.code_config);
    let remaining = campaign.vouchersTarget - campaign.vouchersCount;
    let fruitless = 0;
    while (remaining > 0) {
      const batch = codes.distinct(Math.min(remaining, CARD_BATCH_SIZE));
      const ids = batch.map(() => base62Id('v_', 32));
      const result = await this.vouchers.insertCardBatch(campaignId, ids, batch);
      if (result.stopped) return 'skipped';
      fruitless = result.inserted === 0 ? fruitless + 1 : 0;
      if (fruitless >= MAX_FRUITLESS_BATCHES) {
        return this.fail(campaignId, `no new unique code in ${MAX_FRUITLESS_BATCHES} batches: the code space of voucher.code_config is used up`);
      }
      remaining = result.remaining;
    }
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

  async scheduleSweep(): Promise<void> {
    await this.jobs.schedule(JobName.CardGenerationSweep, {}, SWEEP_EVERY_MS);
  }
}
