import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';

/**
 * A database transaction as services see it: an opaque handle they pass to repository methods, which are
 * the only code that touches it. Services decide what happens together; repositories say how.
 */
export type Tx = EntityManager;

/** Deadlock and serialization failure: PostgreSQL rolled the transaction back whole, so it can simply run again. */
const RETRYABLE = new Set(['40P01', '40001']);
const ATTEMPTS = 5;
/** The first retry waits up to this long (random), each later one up to twice the one before. */
const BACKOFF_MS = 10;

function retryableConflict(error: unknown): boolean {
  const code = (error as { driverError?: { code?: string }; code?: string }).driverError?.code ?? (error as { code?: string }).code;
  return code !== undefined && RETRYABLE.has(code);
}

@Injectable()
export class TransactionRunner {
  private readonly logger = new Logger(TransactionRunner.name);

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Runs `work` in one READ COMMITTED transaction. A transaction that loses a deadlock or a serialization
   * race is run again, up to 5 times, after a random wait that doubles each time (10, 20, 40, 80 ms at
   * most), so that the losers of one conflict do not meet again at once. `work` must therefore be safe to
   * repeat: it may only change the database (nothing is sent, queued or counted inside it). A conflict
   * that survives every attempt reaches the client as 503 database_busy, never as 500.
   */
  async run<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.dataSource.transaction(work);
      } catch (error) {
        if (attempt >= ATTEMPTS || !retryableConflict(error)) {
          if (attempt > 1) this.logger.warn({ attempts: attempt, err: error }, 'transaction failed after retrying its lock conflicts');
          throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, Math.random() * BACKOFF_MS * 2 ** (attempt - 1)));
      }
    }
  }

  /**
   * Runs `work` inside a savepoint of `tx`: when it throws, what it changed is undone and the transaction
   * can go on (its locks are kept). For a batch that sets one bad item aside instead of failing whole. One
   * name serves every call: a nested savepoint of the same name hides the outer one until it is released.
   */
  async savepoint<T>(tx: Tx, work: () => Promise<T>): Promise<T> {
    await tx.query('SAVEPOINT item');
    try {
      const result = await work();
      await tx.query('RELEASE SAVEPOINT item');
      return result;
    } catch (error) {
      await tx.query('ROLLBACK TO SAVEPOINT item');
      throw error;
    }
  }
}
