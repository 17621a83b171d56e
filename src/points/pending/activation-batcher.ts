import { Injectable, Logger } from '@nestjs/common';
import { internalCause } from '../../events/events.service.js';
import { ActivationService } from './activation.service.js';

/** Largest number of job-requested entries in one transaction. */
export const MAX_REQUESTED_PER_BATCH = 500;
/** Due entries a worker batch activates besides the ones its jobs asked for. */
export const EXTRA_DUE_PER_BATCH = 1_000;
/** Batches in flight at once (the pool has 10 connections; the rest stay free for the sweep and reads). */
const MAX_IN_FLIGHT = 2;

interface Waiter {
  id: string;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Turns the worker's activation jobs (one per entry, many running at once) into few transactions: one
 * transaction per entry cannot reach thousands of activations a second on two cores. Jobs that arrive
 * while a batch is in flight wait for the next one, so batches grow with the load and a lone job is not
 * delayed. Each batch also activates other due entries (so 10,000 entries coming due together are
 * activated at database speed, not at the speed the queue hands out their jobs); their own jobs then
 * find nothing to do. A failed batch is retried entry by entry, so one bad entry fails only its own job.
 */
@Injectable()
export class ActivationBatcher {
  private readonly logger = new Logger(ActivationBatcher.name);
  private queue: Waiter[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(private readonly activation: ActivationService) {}

  /** Resolves once the entry is no longer PENDING because of this batch or an earlier one. */
  submit(id: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ id, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= MAX_IN_FLIGHT || !this.queue.length) return;
    this.scheduled = true;
    // Let the jobs handed out in this turn of the event loop join the batch.
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.inFlight >= MAX_IN_FLIGHT || !this.queue.length) return;
    const batch = this.queue.splice(0, MAX_REQUESTED_PER_BATCH);
    this.inFlight += 1;
    try {
      await this.activation.activate({ ids: batch.map((w) => w.id), extraDue: EXTRA_DUE_PER_BATCH, operation: 'AUTOMATIC', cause: internalCause() });
      for (const waiter of batch) waiter.resolve();
    } catch (error) {
      if (batch.length === 1) batch[0].reject(error);
      else {
        this.logger.warn({ err: error, entries: batch.length }, 'activation batch failed; retrying its entries one by one');
        for (const waiter of batch) {
          await this.activation.activate({ ids: [waiter.id], extraDue: 0, operation: 'AUTOMATIC', cause: internalCause() }).then(() => waiter.resolve(), waiter.reject);
        }
      }
    } finally {
      this.inFlight -= 1;
      this.schedule();
    }
  }
}
