import { Module } from '@nestjs/common';
import { DatabaseKitModule } from '../database/database-kit.module.js';
import { IdempotencyRepository } from './idempotency.repository.js';
import { IdempotencyService } from './idempotency.service.js';

/**
 * Idempotency-Key for the routes that take it (IdempotencyService.run): infrastructure, no feature. The table
 * `idempotency_keys` is its own; the business transaction a route runs stores the answer through it.
 */
@Module({ imports: [DatabaseKitModule], providers: [IdempotencyRepository, IdempotencyService], exports: [IdempotencyService] })
export class IdempotencyModule {}
