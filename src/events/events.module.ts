import { Module } from '@nestjs/common';
import { PaginationModule } from '../common/pagination/pagination.module.js';
import { EventRepository } from './event.repository.js';
import { EventsController } from './events.controller.js';
import { EventsService } from './events.service.js';

/**
 * The events domain: the outbox/event log today; the relay, distributions and webhook delivery join it.
 * It depends on no feature module: features record events through EventsService inside their transactions.
 */
@Module({
  imports: [PaginationModule],
  controllers: [EventsController],
  providers: [EventsService, EventRepository],
  exports: [EventsService],
})
export class EventsModule {}
