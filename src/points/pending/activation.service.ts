import { Injectable, Logger } from '@nestjs/common';
import { dataError } from '../../common/errors/infrastructure-errors.js';
import { TransactionRunner } from '../../database/transaction-runner.js';
import type { EventCause } from '../../events/recording/event-recording.js';
import { type ActivationTrigger, Metrics } from '../../metrics/metrics.js';
import { CardRepository, type LockedCards } from '../../cards/card.repository.js';
import { type ActivatedEntry, ActivationRepository } from './activation.repository.js';
import type { OperationType } from './pending-events.repository.js';
import { PendingPointsRepository } from './pending-points.repository.js';

export interface ActivationRequest {
  /** Entries to activate if they are still PENDING (the jobs' entries). */
  ids: string[];
  /** Also activate up to this many other due entries (the sweep, and worker batches riding along). */
  extraDue: number;
  operation: OperationType;
  cause: EventCause;
  /** What ran it, for the activations metric: the worker's job batches (the default) or the sweep. */
  trigger?: Exclude<ActivationTrigger, 'api'>;
}

export interface ActivationResult {
  activated: ActivatedEntry[];
  /** Entries that could not be activated (a value PostgreSQL refused), set aside with their error. */
  setAside: { id: string; error: string }[];
  /**
   * Entries found (requested or due) but left PENDING because another transaction held their card: never
   * waited for, so two batches never queue behind each other's card locks; a later batch takes them.
   */
  busy: number;
}

/** How long a cohort's lane waits when every due entry it found had its card held by another transaction. */
const BUSY_PAUSE_MS = 25;
/** Such waits in a row before the lane leaves the rest to the other lane, the next cohort or the sweep. */
const BUSY_ROUNDS = 20;

/**
 * The one way pending points reach a balance, for the delayed job, the sweep and the manual endpoint
 * alike. One database transaction per batch holds, for every entry: the conditional PENDING → ACTIVATED
 * update, the card credit, one PENDING_POINTS_ACTIVATION ledger row and one `…pending_points.activated`
 * event. An entry that is no longer PENDING is simply not in the batch, so racing callers credit it once.
 */
@Injectable()
export class ActivationService {
  private readonly logger = new Logger(ActivationService.name);

  constructor(
    private readonly transactions: TransactionRunner,
    private readonly pending: PendingPointsRepository,
    private readonly cards: CardRepository,
    private readonly activation: ActivationRepository,
    private readonly metrics: Metrics,
  ) {}

  /**
   * By hand (POST …/pending-points/{id}/activate): the entry is activated unless it is no longer PENDING. A transaction holding it
   * (the worker settling it this very moment) is waited for, so the answer says what happened.
   */
  async activateManually(projectId: string, cardId: string, entryId: string, cause: EventCause): Promise<ActivatedEntry | null> {
    const done = await this.transactions.run(async (tx) => {
      // The card first, then its entry: the order every write on a card takes (CardRepository).
      const locked = await this.cards.lock(tx, [cardId]);
      if (!locked.has(cardId)) return null;
      const entry = await this.pending.lockPending(tx, projectId, entryId);
      if (!entry || entry.voucherId !== cardId) return null;
      const [activated] = await this.activation.activate(locked, [entry.id], 'MANUAL', cause);
      return activated ?? null;
    });
    // Counted once committed (the transaction may run its callback again after a deadlock).
    if (done) this.metrics.activated('MANUAL', 'api', 1);
    return done;
  }

  /**
   * The worker's batch: the requested entries that are still PENDING and up to `extraDue` other due ones.
   * It never waits for a lock: entries another transaction holds are being settled by it, and entries whose
   * card another batch holds are left PENDING and counted as `busy`.
   */
  async activate(request: ActivationRequest): Promise<ActivationResult> {
    const result = await this.transactions.run(async (tx) => {
      const candidates = await this.pending.lockForActivation(tx, request.ids, request.extraDue);
      const cards = await this.cards.lockAvailable(tx, candidates.map((c) => c.voucherId));
      const ready = candidates.filter((c) => cards.has(c.voucherId)).map((c) => c.id);
      return { ...(await this.activateOrSetAside(cards, ready, request)), busy: candidates.length - ready.length };
    });
    this.metrics.activated(request.operation, request.trigger ?? 'job', result.activated.length);
    if (result.setAside.length) this.logger.warn({ entries: result.setAside }, 'pending entries could not be activated and were set aside (activation_error)');
    return result;
  }

  /**
   * The batch in one statement; if PostgreSQL refuses a value in it (a card's points past their cap), each
   * entry again on its own, and the ones it still refuses are set aside (`activation_error`, out of the due
   * index) so that the rest commit and no later batch or sweep takes them first again.
   */
  private async activateOrSetAside(locked: LockedCards, ids: string[], request: ActivationRequest): Promise<Pick<ActivationResult, 'activated' | 'setAside'>> {
    const tx = locked.tx;
    try {
      return { activated: await this.transactions.savepoint(tx, () => this.activation.activate(locked, ids, request.operation, request.cause)), setAside: [] };
    } catch (error) {
      if (!dataError(error)) throw error;
    }
    const activated: ActivatedEntry[] = [];
    const setAside: { id: string; error: string }[] = [];
    for (const id of ids) {
      try {
        activated.push(...(await this.transactions.savepoint(tx, () => this.activation.activate(locked, [id], request.operation, request.cause))));
      } catch (error) {
        const refused = dataError(error);
        if (!refused) throw error;
        setAside.push({ id, error: refused.message });
      }
    }
    await this.pending.setAside(tx, setAside);
    return { activated, setAside };
  }

  /**
   * A cohort job's lane: due entries (oldest first, of every project) in batches of `batchSize` until a batch
   * finds fewer than it could take and none whose card was busy. It looks first, outside a transaction: a
   * cohort an earlier job drained (another project's, of the same moment) costs one index probe, and
   * `onFullBatch` runs at once if more than a batch is due: a large cohort then gets a second lane (another
   * job, likely on the other worker); the lanes never wait for each other (SKIP LOCKED on entries and
   * cards). Returns how many it activated.
   */
  async drainDue(batchSize: number, cause: EventCause, onFullBatch?: () => Promise<void>): Promise<number> {
    const due = await this.pending.dueUpTo(batchSize + 1);
    if (due === 0) return 0;
    if (due > batchSize) await onFullBatch?.();
    let total = 0;
    let idle = 0;
    for (;;) {
      const started = Date.now();
      const { activated, setAside, busy } = await this.activate({ ids: [], extraDue: batchSize, operation: 'AUTOMATIC', cause });
      // At debug level only; bench/pending-points.mjs reads these lines for the moment each batch committed.
      this.logger.debug({ activated: activated.length, busy, started, ms: Date.now() - started }, 'activation batch committed');
      total += activated.length;
      const found = activated.length + setAside.length + busy;
      if (activated.length + setAside.length === 0) {
        if (busy === 0 || ++idle > BUSY_ROUNDS) return total;
        await new Promise((resolve) => setTimeout(resolve, BUSY_PAUSE_MS));
        continue;
      }
      idle = 0;
      if (found < batchSize && busy === 0) return total;
    }
  }

  /** Activates due entries in batches until a batch finds fewer than it could take; returns how many. */
  async sweep(batchSize: number, cause: EventCause): Promise<number> {
    let total = 0;
    for (;;) {
      const { activated, setAside } = await this.activate({ ids: [], extraDue: batchSize, operation: 'AUTOMATIC', cause, trigger: 'sweep' });
      total += activated.length;
      if (activated.length + setAside.length < batchSize) return total;
    }
  }
}
