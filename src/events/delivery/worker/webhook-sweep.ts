import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config.js';
import type { SweepDefinition } from '../../../queue/sweeps.js';
import { WorkerSweep } from '../../../queue/worker-feature.js';
import { WebhookRelay } from './webhook-relay.js';

/** The worker's webhook sweep (WebhookRelay.sweep). */
@Injectable()
@WorkerSweep()
export class WebhookSweep implements SweepDefinition {
  readonly name = 'webhooks';
  readonly everyMs: number;

  constructor(
    config: AppConfig,
    private readonly relay: WebhookRelay,
  ) {
    this.everyMs = config.sweeps.webhooksMs;
  }

  run(): Promise<number> {
    return this.relay.sweep();
  }
}
