import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency-Key (src/idempotency/): one row per key of a project on one route. A request claims its key
 * with an IN_FLIGHT row (its `claim_token`, `locked_at`); the business transaction of a success turns it
 * into DONE with the answer, a stored client error does the same after it, and anything else deletes it.
 * `expires_at` is when the key is forgotten; the index serves the worker's sweep, which deletes expired
 * rows in batches.
 */
export class IdempotencyKeys1795550000000 implements MigrationInterface {
  name = 'IdempotencyKeys1795550000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "idempotency_keys" (
                "project_id" text NOT NULL,
                "scope" text NOT NULL,
                "key" text NOT NULL,
                "fingerprint" text NOT NULL,
                "status" text NOT NULL,
                "claim_token" text NOT NULL,
                "locked_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL,
                "response_status" integer,
                "response_body" json,
                "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
                "expires_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL,
                CONSTRAINT "pk_idempotency_keys" PRIMARY KEY ("project_id", "scope", "key")
            )
        `);
    await queryRunner.query(`CREATE INDEX "idx_idempotency_keys_expires_at" ON "idempotency_keys" ("expires_at")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idx_idempotency_keys_expires_at"`);
    await queryRunner.query(`DROP TABLE "idempotency_keys"`);
  }
}
