import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';
import type { SweepDefinition } from '../queue/sweeps.js';
import { WorkerSweep } from '../queue/worker-feature.js';
import { CardGenerationService } from './card-generation.service.js';

/**
 * The worker's card generation sweep (CardGenerationService.sweep). It replaces the BullMQ job scheduler of
 * earlier versions, which the worker removes at start.
 */
@Injectable()
@WorkerSweep()
export class CardGenerationSweep implements SweepDefinition, OnApplicationBootstrap {
  private readonly logger = new Logger('Worker');
  readonly name = 'card-generation';
  readonly everyMs: number;

  constructor(
    config: AppConfig,
    private readonly cards: CardGenerationService,
  ) {
    this.everyMs = config.sweeps.cardGenerationMs;
  }

  run(): Promise<number> {
    return this.cards.sweep();
  }

  onApplicationBootstrap(): void {
    // Not awaited: with Redis down this would wait for it, and the worker must start anyway.
    void this.cards.removeLegacyScheduler().catch((error: unknown) => this.logger.warn({ err: error }, 'could not remove the legacy card generation scheduler'));
  }
}
