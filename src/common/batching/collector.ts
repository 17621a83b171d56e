import { ApiError } from '../errors/api-error.js';
import { databaseBusy, unavailableDependency } from '../errors/infrastructure-errors.js';

/** How big one batch may grow. */
export interface CollectorLimits {
  /** At most this many items in one batch. */
  items: number;
  /** At most this many bytes (as the submitter counts them) in one batch; an item larger than this goes alone. */
  bytes: number;
  /** At most this many batches of one key running at once. */
  inFlight: number;
  /** An item that waited this long without a batch taking it is refused (`tooLong`): a bounded wait, as for a pool's connection. */
  waitMs: number;
}

export interface Submission {
  /** What the item weighs against `CollectorLimits.bytes`. */
  bytes: number;
  /** Items with the same conflict key never share a batch (a later one waits for the next). */
  conflict: string;
}

interface Waiting<I, R> extends Submission {
  item: I;
  resolve(value: R): void;
  reject(error: unknown): void;
  timer: ReturnType<typeof setTimeout>;
}

interface KeyState<I, R> {
  queue: Waiting<I, R>[];
  running: number;
}

/**
 * Collects concurrent requests of one key into batches that `run` handles together (one transaction for
 * many paid orders, issue 40). No window is waited for: a request that finds fewer than `inFlight` batches of
 * its key running starts one at once, alone; requests that arrive while the key's batches run wait, and the
 * next batch takes all of them (within the limits). Under a stream of requests a batch therefore holds what
 * came during the one before, and a lone request is served as soon as it comes.
 *
 * `run(items)` answers one result per item, in their order, or throws. When a batch of several throws an
 * error that `split` says belongs to the items (bad data, a bug) rather than to the moment (the database
 * unreachable or busy), each item is run again alone, one after the other, so one bad item fails only itself;
 * otherwise every item of the batch gets the error, as it would have alone. Keys run independently (one
 * project's batches never wait for another's), and a key's state is dropped when its queue is empty. An item
 * waits at most `waitMs` for a batch to take it (the batches before it stuck behind a lock, say), then gets
 * `tooLong()`.
 */
export class Collector<I, R> {
  private readonly keys = new Map<string, KeyState<I, R>>();

  constructor(
    private readonly run: (items: I[]) => Promise<R[]>,
    private readonly split: (error: unknown) => boolean,
    private readonly limits: CollectorLimits,
    private readonly tooLong: () => unknown,
  ) {}

  /** Items waiting for a batch of their key (not yet in a running one): for tests and diagnostics. */
  get waiting(): number {
    let n = 0;
    for (const state of this.keys.values()) n += state.queue.length;
    return n;
  }

  submit(key: string, item: I, submission: Submission): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      let state = this.keys.get(key);
      if (!state) this.keys.set(key, (state = { queue: [], running: 0 }));
      const waiting: Waiting<I, R> = { item, ...submission, resolve, reject, timer: setTimeout(() => this.expire(key, waiting), this.limits.waitMs) };
      state.queue.push(waiting);
      if (state.running < this.limits.inFlight) {
        state.running += 1;
        void this.drain(key, state);
      }
    });
  }

  /** Batches of the key until its queue is empty; a batch's outcome is always settled on its items, never thrown. */
  private async drain(key: string, state: KeyState<I, R>): Promise<void> {
    while (state.queue.length) await this.settle(this.take(state.queue));
    state.running -= 1;
    if (state.running === 0 && !state.queue.length) this.keys.delete(key);
  }

  /** The next batch: the first waiting item, then the others in their order while they fit and conflict with none taken. */
  private take(queue: Waiting<I, R>[]): Waiting<I, R>[] {
    const batch: Waiting<I, R>[] = [];
    const conflicts = new Set<string>();
    let bytes = 0;
    for (let i = 0; i < queue.length && batch.length < this.limits.items; ) {
      const next = queue[i];
      if (batch.length && (conflicts.has(next.conflict) || bytes + next.bytes > this.limits.bytes)) {
        i += 1;
        continue;
      }
      clearTimeout(next.timer);
      batch.push(next);
      conflicts.add(next.conflict);
      bytes += next.bytes;
      queue.splice(i, 1);
    }
    return batch;
  }

  /** An item still waiting after `waitMs`: out of its queue, refused. */
  private expire(key: string, waiting: Waiting<I, R>): void {
    const state = this.keys.get(key);
    const at = state?.queue.indexOf(waiting) ?? -1;
    if (!state || at < 0) return;
    state.queue.splice(at, 1);
    waiting.reject(this.tooLong());
  }

  private async settle(batch: Waiting<I, R>[]): Promise<void> {
    let results: R[];
    try {
      results = await this.run(batch.map((waiting) => waiting.item));
      if (results.length !== batch.length) throw new Error(`a batch of ${batch.length} answered ${results.length} results`);
    } catch (error) {
      if (batch.length > 1 && this.split(error)) {
        for (const waiting of batch) await this.settle([waiting]);
      } else {
        for (const waiting of batch) waiting.reject(error);
      }
      return;
    }
    batch.forEach((waiting, i) => waiting.resolve(results[i]));
  }
}

/**
 * How the API batches concurrent requests of a project (paid orders, MATERIAL redemptions; docs/architecture.md,
 * "Requests by the batch"): at most 64 of them, or 1 MiB of what they carry, in one transaction, and two
 * transactions of a project's batches at once per API process (one collects while the other commits).
 */
export const REQUEST_BATCH_LIMITS = { items: 64, bytes: 1 << 20, inFlight: 2 };

/**
 * A collector of the API's requests: batches within REQUEST_BATCH_LIMITS; a batch that failed for its items'
 * reason (not a busy or unreachable database) runs each item again alone; a request waits for a batch at most
 * `waitMs` (DATABASE_POOL_WAIT_MS: as long as for a connection), then gets 503 database_busy.
 */
export function requestCollector<I, R>(run: (items: I[]) => Promise<R[]>, waitMs: number): Collector<I, R> {
  return new Collector(run, (error) => !databaseBusy(error) && !unavailableDependency(error), { ...REQUEST_BATCH_LIMITS, waitMs }, () => ApiError.databaseBusy('batch'));
}
