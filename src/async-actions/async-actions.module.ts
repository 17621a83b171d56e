import { Module } from '@nestjs/common';
import { AsyncActionRepository } from './async-action.repository.js';
import { AsyncActionsController } from './async-actions.controller.js';
import { AsyncActionsService } from './async-actions.service.js';

/**
 * Async actions (`async_actions`, its own table): `GET /v1/async-actions[/{id}]`, and `recordDone` for the
 * features above it whose endpoints answer with an action id (campaigns: the deletion). It imports no feature.
 * The worker's sweep of old actions is AsyncActionsWorkerModule.
 */
@Module({
  controllers: [AsyncActionsController],
  providers: [AsyncActionsService, AsyncActionRepository],
  exports: [AsyncActionsService],
})
export class AsyncActionsModule {}
