import { Module } from '@nestjs/common';
import { DataCipher } from '../common/crypto/data-cipher.js';
import { PaginationModule } from '../common/pagination/pagination.module.js';
import { DatabaseKitModule } from '../database/database-kit.module.js';
import { DeliveriesController } from './delivery/deliveries.controller.js';
import { DeliveriesRepository } from './delivery/deliveries.repository.js';
import { DeliveriesService } from './delivery/deliveries.service.js';
import { DeliveryJobs } from './delivery/delivery-jobs.js';
import { DistributionRepository } from './distributions/distribution.repository.js';
import { DistributionsController } from './distributions/distributions.controller.js';
import { DistributionsService } from './distributions/distributions.service.js';
import { EventRepository } from './event.repository.js';
import { EventsController } from './events.controller.js';
import { EventsService } from './events.service.js';
import { WebhookSecretController } from './secrets/webhook-secret.controller.js';
import { WebhookSecretRepository } from './secrets/webhook-secret.repository.js';
import { WebhookSecretService } from './secrets/webhook-secret.service.js';

/**
 * The events domain: the outbox and event log, the relay from events to webhook deliveries, the
 * distributions, the signing secret and the delivery of webhooks. It depends on no feature module: features
 * record events inside their transactions through recording/event-recording.ts (a file, no provider). The relay, the
 * dispatcher and the delivery processor run in the worker only (delivery/worker/, DeliveryWorkerModule).
 */
@Module({
  imports: [DatabaseKitModule, PaginationModule],
  controllers: [EventsController, DistributionsController, DeliveriesController, WebhookSecretController],
  providers: [
    EventsService,
    EventRepository,
    DistributionRepository,
    DistributionsService,
    WebhookSecretRepository,
    WebhookSecretService,
    DeliveriesRepository,
    DeliveriesService,
    DeliveryJobs,
    DataCipher,
  ],
  exports: [DistributionRepository, WebhookSecretRepository, DeliveryJobs, DataCipher],
})
export class EventsModule {}
