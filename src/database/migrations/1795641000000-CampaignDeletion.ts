import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 36: a forced campaign deletion is carried out by the worker in bounded batches, in turns between
 * projects. The request hides the campaign (`deleted_at`) and records the deletion's async action
 * (`deletion_action_id`, IN_PROGRESS); the worker takes turns (`deletion_turn_at`, held by
 * `deletion_lease_until` while a batch runs) from a partial index of the campaigns being deleted.
 *
 * A batch deletes the history of its cards by card: pending entries and point buckets get an index on the
 * card for every status (their indexes by card held PENDING and ACTIVE rows only), which the cascade of a
 * card's deletion also needed (it read the whole table for each card otherwise).
 */
export class CampaignDeletion1795641000000 implements MigrationInterface {
  name = 'CampaignDeletion1795641000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "campaigns" ADD "deletion_action_id" text`);
    await queryRunner.query(`ALTER TABLE "campaigns" ADD "deletion_turn_at" TIMESTAMP(3) WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "campaigns" ADD "deletion_lease_until" TIMESTAMP(3) WITH TIME ZONE`);
    await queryRunner.query(`CREATE INDEX "idx_campaigns_deleting" ON "campaigns" ("project_id", "deletion_turn_at") WHERE "deletion_action_id" IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX "idx_pending_points_voucher" ON "loyalty_pending_points" ("voucher_id")`);
    await queryRunner.query(`CREATE INDEX "idx_points_buckets_voucher" ON "loyalty_points_buckets" ("voucher_id")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idx_points_buckets_voucher"`);
    await queryRunner.query(`DROP INDEX "public"."idx_pending_points_voucher"`);
    await queryRunner.query(`DROP INDEX "public"."idx_campaigns_deleting"`);
    await queryRunner.query(`ALTER TABLE "campaigns" DROP COLUMN "deletion_lease_until"`);
    await queryRunner.query(`ALTER TABLE "campaigns" DROP COLUMN "deletion_turn_at"`);
    await queryRunner.query(`ALTER TABLE "campaigns" DROP COLUMN "deletion_action_id"`);
  }
}
