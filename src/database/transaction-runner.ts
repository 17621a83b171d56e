import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';

/**
 * A database transaction as services see it: an opaque handle they pass to repository methods, which are
 * the only code that touches it. Services decide what happens together; repositories say how.
 */
export type Tx = EntityManager;

/** Deadlock and serialization failure: the transaction did nothing and can simply run again. */
const RETRYABLE = new Set(['40P01', '40001']);
const ATTEMPTS = 4;

@Injectable()
export class TransactionRunner {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Runs `work` in one READ COMMITTED transaction. A deadlock (two transactions locking the same cards in
   * another order) is retried a few times: PostgreSQL rolled the loser back entirely, so nothing is doubled.
   */
  async run<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.dataSource.transaction(work);
      } catch (error) {
        const code = (error as { driverError?: { code?: string } }).driverError?.code;
        if (attempt >= ATTEMPTS || !code || !RETRYABLE.has(code)) throw error;
      }
    }
  }
}
