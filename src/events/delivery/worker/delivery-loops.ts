import { Injectable } from '@nestjs/common';
import { type WorkerLoop, WorkerLoopProvider } from '../../../queue/worker-feature.js';
import { DeliveryDispatcher } from './delivery-dispatcher.js';
import { WebhookRelay } from './webhook-relay.js';

/**
 * The delivery loops of the worker: the dispatcher starts before the relay that wakes it, and stops after
 * it, so that the attempts the relay's last batch started are recorded.
 */
@Injectable()
@WorkerLoopProvider()
export class DeliveryLoops implements WorkerLoop {
  constructor(
    private readonly relay: WebhookRelay,
    private readonly dispatcher: DeliveryDispatcher,
  ) {}

  start(): void {
    this.dispatcher.start();
    this.relay.start();
  }

  async stop(): Promise<void> {
    await this.relay.stop();
    await this.dispatcher.stop();
  }
}
