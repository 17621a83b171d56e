import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 36: a recover reads the FAILED deliveries created since its `since`, newest first, and stops there.
 * The index holds FAILED rows only (a distribution's failures, not its whole history), by (distribution,
 * created_at, id): the batch's keyset. Before, the batches walked every FAILED delivery by `seq`.
 */
export class RecoverSince1795640000000 implements MigrationInterface {
  name = 'RecoverSince1795640000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "idx_webhook_deliveries_failed_created" ON "webhook_deliveries" ("distribution_id", "created_at", "id") WHERE "status" = 'FAILED'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_deliveries_failed_created"`);
  }
}
