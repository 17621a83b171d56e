import { Module } from '@nestjs/common';
import { DatabaseKitModule } from '../../../database/database-kit.module.js';
import { workerFeature } from '../../../queue/worker-feature.js';
import { EventsModule } from '../../events.module.js';
import { DeliveryDispatcher } from './delivery-dispatcher.js';
import { DeliveryLoops } from './delivery-loops.js';
import { DispatchRepository } from './dispatch.repository.js';
import { EventPayloadRepository } from './event-payload.repository.js';
import { WebhookDeliveryProcessor } from './webhook-delivery.processor.js';
import { WebhookDeliveryService } from './webhook-delivery.service.js';
import { WebhookHousekeeping } from './webhook-housekeeping.js';
import { WebhookRelay } from './webhook-relay.js';
import { WebhookSweep } from './webhook-sweep.js';
import { WebhookWorkRepository } from './webhook-work.repository.js';
import { WorkerDeliveryRepository } from './worker-delivery.repository.js';

/**
 * The worker's side of webhook delivery: the relay from events to deliveries, the dispatcher, the delivery
 * jobs (retries, attempts asked for by hand), the housekeeping of recover, resume and delete, and the
 * webhook sweep. The API process has none of these.
 */
@Module({})
export class DeliveryWorkerModule {}

export const DeliveryWorker = workerFeature(DeliveryWorkerModule, {
  imports: [DatabaseKitModule, EventsModule],
  providers: [
    WorkerDeliveryRepository,
    EventPayloadRepository,
    DispatchRepository,
    WebhookDeliveryService,
    DeliveryDispatcher,
    WebhookRelay,
    WebhookWorkRepository,
    WebhookHousekeeping,
    DeliveryLoops,
    WebhookSweep,
  ],
  processors: [WebhookDeliveryProcessor],
});
