import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

export const IDEMPOTENCY_STATUSES = ['IN_FLIGHT', 'DONE'] as const;
export type IdempotencyStatus = (typeof IDEMPOTENCY_STATUSES)[number];

/**
 * One Idempotency-Key of a project on one route (`scope`): the claim of the request that runs under it
 * (IN_FLIGHT, held by `claim_token`), then the answer a retry gets again (DONE). Written by
 * IdempotencyRepository only; the row of a DONE success commits in the business transaction of its request.
 */
@Entity({ name: 'idempotency_keys' })
@Index('idx_idempotency_keys_expires_at', ['expiresAt'])
export class IdempotencyKey {
  @PrimaryColumn({ name: 'project_id', type: 'text', primaryKeyConstraintName: 'pk_idempotency_keys' })
  projectId: string;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'pk_idempotency_keys' })
  scope: string;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'pk_idempotency_keys' })
  key: string;

  /** SHA-256 (hex) of the canonical JSON of what the route said makes the request (path parameters and body). */
  @Column({ type: 'text' })
  fingerprint: string;

  @Column({ type: 'text' })
  status: IdempotencyStatus;

  /** Random, new at each claim: only the request holding the claim may complete or release it. */
  @Column({ name: 'claim_token', type: 'text' })
  claimToken: string;

  /** When the current claim was taken: an IN_FLIGHT row older than the lease may be taken over. */
  @Column({ name: 'locked_at', type: 'timestamptz', precision: 3 })
  lockedAt: Date;

  /** The HTTP status of the stored answer (DONE only). */
  @Column({ name: 'response_status', type: 'integer', nullable: true })
  responseStatus: number | null;

  /** The stored answer as sent (json, not jsonb: its keys keep their order), DONE only. */
  @Column({ name: 'response_body', type: 'json', nullable: true })
  responseBody: unknown;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz', precision: 3 })
  expiresAt: Date;
}
