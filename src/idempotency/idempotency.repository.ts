import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Tx } from '../database/transaction-runner.js';
import type { IdempotencyStatus } from './idempotency-key.entity.js';

/** A key of a project on one route. */
export interface IdempotencyKeyRef {
  projectId: string;
  scope: string;
  key: string;
}

/** The claim a request holds on its key: only the holder of `token` completes or releases it. */
export interface IdempotencyClaim extends IdempotencyKeyRef {
  token: string;
}

/** A key's row as a later request with it reads it. */
export interface IdempotencyRecord {
  fingerprint: string;
  status: IdempotencyStatus;
  claimToken: string;
  responseStatus: number | null;
  responseBody: unknown;
  /** Past `expires_at`: the key is forgotten (the sweep has not deleted it yet). */
  expired: boolean;
  /** IN_FLIGHT for longer than the lease: its request is taken for dead. */
  stale: boolean;
}

/**
 * The `idempotency_keys` table. Claims, releases and stored errors are statements of their own; a success is
 * stored by `complete` in the caller's business transaction. Every change names the claim's token, so a request
 * whose claim was taken over (or forgotten) changes nothing.
 */
@Injectable()
export class IdempotencyRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** A new IN_FLIGHT claim; false when the key already has a row (whatever its state). */
  async insertClaim(claim: IdempotencyClaim, fingerprint: string, ttlMs: number): Promise<boolean> {
    const rows = (await this.dataSource.query(
      `INSERT INTO idempotency_keys (project_id, scope, key, fingerprint, status, claim_token, locked_at, expires_at)
       VALUES ($1, $2, $3, $4, 'IN_FLIGHT', $5, now(), now() + $6::bigint * interval '1 millisecond')
       ON CONFLICT (project_id, scope, key) DO NOTHING
       RETURNING 1`,
      [claim.projectId, claim.scope, claim.key, fingerprint, claim.token, ttlMs],
    )) as unknown[];
    return rows.length === 1;
  }

  async find(ref: IdempotencyKeyRef, leaseMs: number): Promise<IdempotencyRecord | null> {
    const [row] = (await this.dataSource.query(
      `SELECT fingerprint, status, claim_token, response_status, response_body, expires_at <= now() AS expired,
              (status = 'IN_FLIGHT' AND locked_at <= now() - $4::bigint * interval '1 millisecond') AS stale
       FROM idempotency_keys WHERE project_id = $1 AND scope = $2 AND key = $3`,
      [ref.projectId, ref.scope, ref.key, leaseMs],
    )) as { fingerprint: string; status: IdempotencyStatus; claim_token: string; response_status: number | null; response_body: unknown; expired: boolean; stale: boolean }[];
    if (!row) return null;
    return { fingerprint: row.fingerprint, status: row.status, claimToken: row.claim_token, responseStatus: row.response_status, responseBody: row.response_body, expired: row.expired, stale: row.stale };
  }

  /**
   * Replaces the claim `previousToken` (expired, or IN_FLIGHT past the lease) by a new one, as a new key. The
   * conditions are checked again on the row as it is now: of two requests taking over one claim, one does;
   * a claim whose request committed meanwhile is no longer IN_FLIGHT and is not taken.
   */
  async takeOver(claim: IdempotencyClaim, previousToken: string, fingerprint: string, ttlMs: number, leaseMs: number): Promise<boolean> {
    const [rows] = (await this.dataSource.query(
      `UPDATE idempotency_keys
       SET fingerprint = $5, status = 'IN_FLIGHT', claim_token = $4, locked_at = now(), response_status = NULL, response_body = NULL,
           created_at = now(), expires_at = now() + $7::bigint * interval '1 millisecond'
       WHERE project_id = $1 AND scope = $2 AND key = $3 AND claim_token = $6
         AND (expires_at <= now() OR (status = 'IN_FLIGHT' AND locked_at <= now() - $8::bigint * interval '1 millisecond'))
       RETURNING 1`,
      [claim.projectId, claim.scope, claim.key, claim.token, fingerprint, previousToken, ttlMs, leaseMs],
    )) as [unknown[], number];
    return rows.length === 1;
  }

  /**
   * The claim becomes DONE with a success's answer, in the caller's business transaction (run again after the
   * transaction runner retried it, it writes the same). False when the claim is no longer this request's
   * (taken over after its lease, or forgotten).
   */
  async complete(tx: Tx, claim: IdempotencyClaim, status: number, body: unknown): Promise<boolean> {
    const [rows] = (await tx.query(
      `UPDATE idempotency_keys SET status = 'DONE', response_status = $5, response_body = $6::json
       WHERE project_id = $1 AND scope = $2 AND key = $3 AND claim_token = $4
       RETURNING 1`,
      [claim.projectId, claim.scope, claim.key, claim.token, status, JSON.stringify(body ?? null)],
    )) as [unknown[], number];
    return rows.length === 1;
  }

  /**
   * The claim, still IN_FLIGHT, becomes DONE with this answer, outside any business transaction: a client error,
   * or the answer of work that wrote nothing. An answer its transaction already stored is kept.
   */
  async storeAnswer(claim: IdempotencyClaim, status: number, body: unknown): Promise<void> {
    await this.dataSource.query(
      `UPDATE idempotency_keys SET status = 'DONE', response_status = $5, response_body = $6::json
       WHERE project_id = $1 AND scope = $2 AND key = $3 AND claim_token = $4 AND status = 'IN_FLIGHT'`,
      [claim.projectId, claim.scope, claim.key, claim.token, status, JSON.stringify(body ?? null)],
    );
  }

  /** Deletes the claim, still IN_FLIGHT: the key is free for a retry. */
  async release(claim: IdempotencyClaim): Promise<void> {
    await this.dataSource.query(`DELETE FROM idempotency_keys WHERE project_id = $1 AND scope = $2 AND key = $3 AND claim_token = $4 AND status = 'IN_FLIGHT'`, [
      claim.projectId,
      claim.scope,
      claim.key,
      claim.token,
    ]);
  }

  /** Deletes up to `limit` expired keys, rows another transaction holds left for later; how many. */
  async deleteExpired(limit: number): Promise<number> {
    const [row] = (await this.dataSource.query(
      `WITH gone AS (
         DELETE FROM idempotency_keys WHERE (project_id, scope, key) IN (
           SELECT project_id, scope, key FROM idempotency_keys WHERE expires_at <= now() LIMIT $1 FOR UPDATE SKIP LOCKED
         )
         RETURNING 1
       )
       SELECT count(*)::int AS n FROM gone`,
      [limit],
    )) as { n: number }[];
    return row.n;
  }
}
