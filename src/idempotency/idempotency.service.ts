import { Injectable, Logger } from '@nestjs/common';
import { ApiError, ERROR_KEYS, type ErrorBody, type ErrorKey } from '../common/errors/api-error.js';
import { hexId } from '../common/ids.js';
import { AppConfig } from '../config/app-config.js';
import { untilShortBatch } from '../database/batches.js';
import type { Tx } from '../database/transaction-runner.js';
import { requestFingerprint } from './fingerprint.js';
import { idempotencyKeyReused, idempotencyRequestInProgress, IDEMPOTENCY_KEY_PATTERN, invalidIdempotencyKey } from './idempotency.errors.js';
import { type IdempotencyClaim, IdempotencyRepository } from './idempotency.repository.js';

/** A request that may carry an Idempotency-Key. */
export interface IdempotentRequest {
  projectId: string;
  /** The route, e.g. `loyalties.members.balance`: a key is one key per project and route. */
  scope: string;
  /** The Idempotency-Key header as received (IdempotencyKeyHeader); undefined: no idempotency. */
  key: string | undefined;
  /** What makes the request: its path parameters and body. The same key with another value is refused (422). */
  fingerprint: unknown;
}

/**
 * Stores a success's answer: called by `work` inside its own business transaction, before it commits (safe
 * to call again when the transaction runner runs the transaction again).
 */
export type IdempotentDone<T> = (tx: Tx, body: T) => Promise<void>;

/** Success answers are stored with this status: an idempotent route answers one success status, its own. */
const SUCCESS_STATUS = 200;
/** Rounds of claim-or-read when the key's row changes under the request (released, swept, taken over). */
const CLAIM_ROUNDS = 5;

/**
 * Idempotency-Key, as Stripe has it (docs/errors.md "Idempotency-Key"): the first request with a key runs and
 * its answer is kept (IDEMPOTENCY_TTL_MS); the same key with the same request gets that answer again, with
 * another request 422 `idempotency_key_reused`, while the first still runs 409 `idempotency_request_in_progress`.
 * A success's answer commits in the request's own business transaction, so the write and its answer are
 * stored together or not at all; a client error (4xx other than 409 and 429) is stored after it; anything else
 * (5xx, 409, 429, a bug) frees the key, so a retry runs again (unless the success was already committed: its
 * answer stays). A claim whose process died frees the key once
 * IDEMPOTENCY_LEASE_MS has passed.
 */
@Injectable()
export class IdempotencyService {
  private readonly logger = new Logger(IdempotencyService.name);

  constructor(
    private readonly config: AppConfig,
    private readonly keys: IdempotencyRepository,
  ) {}

  /**
   * Runs `work` once per key: `work` calls `done(tx, body)` in its business transaction with the 2xx body
   * it returns. A replay returns the stored body as JSON gives it back (dates as strings, which serialize the
   * same) and throws a stored error again. `work` that writes nothing may return without calling `done`: its
   * answer is then stored after it.
   */
  async run<T>(request: IdempotentRequest, work: (done: IdempotentDone<T>) => Promise<T>): Promise<T> {
    if (request.key === undefined) return work(async () => undefined);
    if (!IDEMPOTENCY_KEY_PATTERN.test(request.key)) throw invalidIdempotencyKey(request.key);
    const claim = await this.claim(request as IdempotentRequest & { key: string }, requestFingerprint(request.fingerprint));
    if ('replay' in claim) return this.replay<T>(claim.replay);

    let stored = false;
    const done: IdempotentDone<T> = async (tx, body) => {
      if (!(await this.keys.complete(tx, claim, SUCCESS_STATUS, body))) throw idempotencyRequestInProgress(claim.key);
      stored = true;
    };
    let result: T;
    try {
      result = await work(done);
    } catch (error) {
      await this.settleFailure(claim, error);
      throw error;
    }
    if (!stored) await this.storeAfter(claim, result);
    return result;
  }

  /**
   * The answer of work that did not store it in a transaction (it wrote nothing). Not storing it is logged,
   * not thrown: the work is done and its answer is the client's; the claim frees itself after the lease.
   */
  private async storeAfter(claim: IdempotencyClaim, body: unknown): Promise<void> {
    try {
      await this.keys.storeAnswer(claim, SUCCESS_STATUS, body);
    } catch (failure) {
      this.logger.warn({ project_id: claim.projectId, scope: claim.scope, err: failure }, 'could not store the answer of an idempotency key; it frees itself after its lease');
    }
  }

  /** Deletes expired keys, `batch` rows per statement, until none is left; how many. */
  deleteExpired(batch: number): Promise<number> {
    return untilShortBatch(batch, (limit) => this.keys.deleteExpired(limit));
  }

  /** The request's claim on its key, or the stored answer to replay; 422 or 409 otherwise. */
  private async claim(request: IdempotentRequest & { key: string }, fingerprint: string): Promise<IdempotencyClaim | { replay: { status: number; body: unknown } }> {
    const { ttlMs, leaseMs } = this.config.idempotency;
    const claim: IdempotencyClaim = { projectId: request.projectId, scope: request.scope, key: request.key, token: hexId('', 16) };
    for (let round = 0; round < CLAIM_ROUNDS; round += 1) {
      if (await this.keys.insertClaim(claim, fingerprint, ttlMs)) return claim;
      const found = await this.keys.find(claim, leaseMs);
      if (!found) continue; // released or swept since: claim it again
      // An expired key is forgotten, whatever it held; a dead claim is the same request's to take over.
      const free = found.expired || (found.stale && found.fingerprint === fingerprint);
      if (free) {
        if (await this.keys.takeOver(claim, found.claimToken, fingerprint, ttlMs, leaseMs)) {
          if (!found.expired) this.logger.warn({ project_id: claim.projectId, scope: claim.scope }, 'idempotency claim taken over after its lease: its request never finished');
          return claim;
        }
        continue; // changed since it was read
      }
      if (found.fingerprint !== fingerprint) throw idempotencyKeyReused(claim.key);
      if (found.status === 'IN_FLIGHT') throw idempotencyRequestInProgress(claim.key);
      return { replay: { status: found.responseStatus ?? SUCCESS_STATUS, body: found.responseBody } };
    }
    throw idempotencyRequestInProgress(claim.key);
  }

  private replay<T>(answer: { status: number; body: unknown }): T {
    if (answer.status < 400) return answer.body as T;
    const body = answer.body as Partial<ErrorBody>;
    const key: ErrorKey = ERROR_KEYS.includes(body.key as ErrorKey) ? (body.key as ErrorKey) : 'invalid_request';
    throw new ApiError(answer.status, key, body.message ?? 'Error', { details: body.details, resourceId: body.resource_id, resourceType: body.resource_type });
  }

  /**
   * After `work` failed: a client error is the answer to keep (the same request would fail the same way);
   * anything else frees the key. 409 and 429 are about the moment (a conflict, a limit), so a retry runs again.
   * Failing to record either is logged, not thrown: the client gets the work's own error, and a claim left
   * behind frees itself after the lease.
   */
  private async settleFailure(claim: IdempotencyClaim, error: unknown): Promise<void> {
    try {
      if (error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 409 && error.status !== 429) {
        const { key, message, details, resource_id, resource_type } = error.toBody(undefined);
        await this.keys.storeAnswer(claim, error.status, { key, message, details, resource_id, resource_type });
      } else {
        await this.keys.release(claim);
      }
    } catch (failure) {
      this.logger.warn({ project_id: claim.projectId, scope: claim.scope, err: failure }, 'could not record the failed request of an idempotency key; it frees itself after its lease');
    }
  }
}
