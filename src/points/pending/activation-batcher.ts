import { Injectable, Logger } from '@nestjs/common';
import { internalCause } from '../../events/recording/event-recording.js';
import { ActivationService } from './activation.service.js';

/** Largest number of job-requested entries in one transaction. */
export const MAX_REQUESTED_PER_BATCH = 500;
/** Due entries a worker batch activates besides the ones its jobs asked for. */
export const EXTRA_DUE_PER_BATCH = 2500;
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
 * delayed. Each batch also activates other due entries, so 10,000 entries coming due together are
 * activated at database speed, not at the speed the queue hands out their jobs (their own jobs then find
 * nothing to do): a job that fires starts a second lane right away, and a batch that found a full load of
 * due entries starts the next, jobs or not, until the due entries run out. A failed batch is retried entry
 * by entry, so one bad entry fails only its own job.
 */
@Injectable()
export class ActivationBatcher {
  private readonly logger = new Logger(ActivationBatcher.name);
  private queue: Waiter[] = [];
  private inFlight = 0;
  private scheduled = false;
  /** Due entries probably remain: start batches even with no job waiting. */
  private moreDue = false;

  constructor(private readonly activation: ActivationService) {}

  /** Resolves once the entry is no longer PENDING because of this batch or an earlier one. */
  submit(id: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ id, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= MAX_IN_FLIGHT || (!this.queue.length && !this.moreDue)) return;
    this.scheduled = true;
    // Let the jobs handed out in this turn of the event loop join the batch.
    setImmediate(() => {
      this.scheduled = false;
      while (this.inFlight < MAX_IN_FLIGHT && (this.queue.length || this.moreDue)) {
        // A job firing says entries are coming due: look for more in a second lane at once.
        this.moreDue = this.queue.length > 0;
        void this.flush(this.queue.splice(0, MAX_REQUESTED_PER_BATCH));
      }
    });
  }

  private async flush(batch: Waiter[]): Promise<void> {
    this.inFlight += 1;
    const started = Date.now();
    try {
      const { activated, deferred } = await this.activation.activate({ ids: batch.map((w) => w.id), extraDue: EXTRA_DUE_PER_BATCH, operation: 'AUTOMATIC', cause: internalCause() });
      // At debug level only; bench/pending-points.mjs reads these lines for the moment each batch committed.
      this.logger.debug({ activated: activated.length, jobs: batch.length, deferred: deferred.length, started, ms: Date.now() - started }, 'activation batch committed');
      if (activated.length >= EXTRA_DUE_PER_BATCH) this.moreDue = true;
      const again = new Set(deferred);
      for (const waiter of batch) if (!again.has(waiter.id)) waiter.resolve();
      // Their card was busy in another batch: they go first into the next one.
      this.queue.unshift(...batch.filter((waiter) => again.has(waiter.id)));
    } catch (error) {
      if (batch.length === 1) batch[0].reject(error);
      else if (batch.length > 1) {
        this.logger.warn({ err: error, entries: batch.length }, 'activation batch failed; retrying its entries one by one');
        for (const waiter of batch) {
          await this.activation.activate({ ids: [waiter.id], extraDue: 0, operation: 'AUTOMATIC', cause: internalCause() }).then(
            ({ deferred }) => (deferred.length ? this.queue.push(waiter) : waiter.resolve()),
            waiter.reject,
          );
        }
      } else {
        this.logger.warn({ err: error }, 'activation batch failed; the next job or the sweep retries');
      }
    } finally {
      this.inFlight -= 1;
      this.schedule();
    }
  }
}
