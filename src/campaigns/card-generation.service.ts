import { Injectable, Logger } from '@nestjs/common';
import { type CardBatch, CardIssueRepository } from '../cards/card-issue.repository.js';
import { base62Id } from '../common/ids.js';
import { AppConfig } from '../config/app-config.js';
import { isUniqueViolation } from '../database/errors.js';
import { TransactionRunner } from '../database/transaction-runner.js';
import { JobQueueService } from '../queue/job-queue.service.js';
import { JOB_QUEUE, JobName } from '../queue/queue.definitions.js';
import { CampaignRepository } from './campaign.repository.js';
import { cardJobId } from './campaigns.service.js';
import { CardTurnRepository, type TurnCampaign } from './card-turn.repository.js';
import { CodeGenerator } from './code-config.js';

/** Cards per INSERT: large enough to amortise round trips, small enough to keep transactions short. */
export const CARD_BATCH_SIZE = 10_000;
/**
 * Batches in flight at once. PostgreSQL maintains the three card indexes in the backend that inserts,
 * so two connections use both cores of a small machine (bench/README.md has the figures).
 */
export const CARD_LANES = 2;
/** Batches in a row that add no card before generation gives up (the code space is used up). */
const MAX_FRUITLESS_BATCHES = 20;
/**
 * How long a worker holds the campaign of its turn. A turn takes well under a second; the lease only
 * matters when a worker dies mid-turn, and then another worker resumes the campaign once it runs out.
 */
export const TURN_LEASE_MS = 60_000;
/** Turns of one campaign that may fail in a row (as the job's attempts did) before it is FAILED. */
export const MAX_TURN_FAILURES = 5;
/** The wait after a failed turn, doubled for each failure in a row (1 s, 2 s, 4 s, 8 s, as the job's retries were). */
const TURN_BACKOFF_MS = 1_000;

export type GenerationOutcome = 'done' | 'failed' | 'skipped' | 'turn';

/**
 * Worker side of campaign creation: makes the campaigns' loyalty cards, in turns shared between projects.
 * A turn gives one campaign up to CARD_GENERATION_TURN_CARDS cards; the next turn goes to the project
 * served longest ago (CardTurnRepository.claim), so a project's small campaign waits at most a turn per
 * other project in progress, however large and many their campaigns.
 */
@Injectable()
export class CardGenerationService {
  private readonly logger = new Logger(CardGenerationService.name);
  /** Campaigns whose codes collided with the project's: their batches go straight to the statement that skips taken codes. */
  private readonly collided = new Set<string>();

  constructor(
    private readonly campaigns: CampaignRepository,
    private readonly turns: CardTurnRepository,
    private readonly cards: CardIssueRepository,
    private readonly transactions: TransactionRunner,
    private readonly jobs: JobQueueService,
    private readonly config: AppConfig,
  ) {}

  /**
   * Takes turns until no campaign is left to work on (those of other workers are held by them), or
   * `stopping()` says the worker is closing (a campaign left IN_PROGRESS is resumed by the sweep or
   * another worker). While a failed turn waits out its backoff, the worker waits with it (as the job's
   * retry did); a free campaign the claim skipped (its row locked for a moment) is claimed again after
   * 10 ms. Returns the turns taken.
   */
  async drain(stopping: () => boolean = () => false): Promise<number> {
    let taken = 0;
    while (!stopping()) {
      const campaign = await this.turns.claim(TURN_LEASE_MS);
      if (!campaign) {
        const retryAt = await this.turns.nextRetryAt(TURN_BACKOFF_MS * 2 ** (MAX_TURN_FAILURES - 2));
        if (!retryAt) return taken;
        // At most a second at a time, so a closing worker is not held.
        await sleep(Math.min(Math.max(retryAt.getTime() - Date.now(), 10), 1_000));
        continue;
      }
      taken += 1;
      const started = Date.now();
      try {
        const outcome = await this.turn(campaign);
        if (outcome !== 'turn') this.logger.log({ campaign_id: campaign.id, outcome, ms: Date.now() - started }, 'card generation finished');
      } catch (error) {
        await this.turnFailed(campaign.id, error);
      }
    }
    return taken;
  }

  /**
   * One turn: makes up to CARD_GENERATION_TURN_CARDS of the cards still missing (target − made so far), so
   * a turn taken again after a crash continues where the last one stopped. Codes drawn in a turn are
   * distinct among themselves, so the lanes never race for one code; a code taken earlier in the project
   * is skipped and drawn again.
   */
  private async turn(campaign: TurnCampaign): Promise<GenerationOutcome> {
    const campaignId = campaign.id;
    const missing = campaign.vouchersTarget - campaign.vouchersCount;
    const codes = new CodeGenerator(campaign.voucher.code_config);
    const drawn = new Set<string>();
    let unassigned = Math.min(missing, this.config.cardGenerationTurnCards);
    let outcome: GenerationOutcome | null = null;

    const lane = async (): Promise<void> => {
      let fruitless = 0;
      while (unassigned > 0 && outcome === null) {
        let left = Math.min(unassigned, CARD_BATCH_SIZE);
        unassigned -= left;
        while (left > 0 && outcome === null) {
          const batch = codes.distinct(left, drawn);
          const result = await this.insertBatch(
            { campaignId, projectId: campaign.projectId, initialPoints: campaign.voucher.loyalty_card.points, ids: batch.map(() => base62Id('v_', 32)), codes: batch },
            this.collided.has(campaignId),
          );
          if (result.stopped) {
            outcome = 'skipped';
            return;
          }
          if (result.collided) this.collided.add(campaignId);
          left -= result.inserted;
          fruitless = result.inserted === 0 ? fruitless + 1 : 0;
          if (fruitless >= MAX_FRUITLESS_BATCHES) outcome = 'failed';
        }
      }
    };
    await Promise.all(Array.from({ length: CARD_LANES }, lane));

    if (outcome === 'failed') return this.fail(campaignId, `no new unique code in ${MAX_FRUITLESS_BATCHES} batches: the code space of voucher.code_config is used up`);
    if (outcome === 'skipped') {
      // Deleted, or finished by another worker whose lease this one outlived: nothing more to do here.
      this.collided.delete(campaignId);
      return 'skipped';
    }
    if (missing > this.config.cardGenerationTurnCards) {
      await this.turns.release(campaignId);
      return 'turn';
    }
    this.collided.delete(campaignId);
    await this.campaigns.finishGeneration(campaignId, 'DONE');
    return 'done';
  }

  private async turnFailed(campaignId: string, error: unknown): Promise<void> {
    const failures = await this.turns.recordFailure(campaignId, TURN_BACKOFF_MS);
    if (failures < MAX_TURN_FAILURES) {
      this.logger.warn({ campaign_id: campaignId, failures, err: error }, 'card generation turn failed; it is tried again');
      return;
    }
    await this.fail(campaignId, error instanceof Error ? error.message : String(error));
  }

  async fail(campaignId: string, reason: string): Promise<GenerationOutcome> {
    this.logger.error({ campaign_id: campaignId, reason }, 'card generation failed');
    this.collided.delete(campaignId);
    await this.campaigns.finishGeneration(campaignId, 'FAILED', reason);
    return 'failed';
  }

  /**
   * One batch of cards and the campaign's count in one transaction (the cards module inserts, the campaign
   * counts; a failed count guard rolls the batch back). The plain INSERT is the fast path; a code already
   * used in the project fails it on the unique constraint, and the batch is redone with the statement that
   * skips taken codes, which `skipTaken` asks for straight away. `stopped`: the campaign no longer takes
   * cards (deleted, done, full).
   */
  private async insertBatch(batch: CardBatch, skipTaken: boolean): Promise<{ inserted: number; stopped: boolean; collided: boolean }> {
    if (!skipTaken) {
      try {
        return { ...(await this.insertOnce(batch, false)), collided: false };
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
    }
    return { ...(await this.insertOnce(batch, true)), collided: true };
  }

  private async insertOnce(batch: CardBatch, skipTaken: boolean): Promise<{ inserted: number; stopped: boolean }> {
    try {
      return await this.transactions.run(async (tx) => {
        const inserted = await this.cards.insertBatch(tx, batch, skipTaken);
        if (!(await this.campaigns.countGeneratedCards(tx, batch.campaignId, inserted))) throw new Stop();
        return { inserted, stopped: false };
      });
    } catch (error) {
      if (error instanceof Stop) return { inserted: 0, stopped: true };
      throw error;
    }
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

/** Rolls a batch back when its campaign no longer takes cards. */
class Stop extends Error {}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
