import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 26: the dispatcher's claim takes projects in turn. It walks the projects that have PENDING
 * deliveries in project order, one index probe per project (which also gives the project's earliest due
 * time; parked deliveries, with no due time, sort last), and reads a few due deliveries of each: both
 * through this index. It replaces the index on `next_attempt_at` alone: with both, the plan the dispatcher
 * keeps for its connection read a project's due deliveries through the other one when the statistics said
 * there were few projects, passing over every other project's due deliveries on each claim. The count of
 * PENDING deliveries (the metrics) uses this one as it used the other.
 */
export class FairDispatch1795490000000 implements MigrationInterface {
  name = 'FairDispatch1795490000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "idx_webhook_deliveries_project_due" ON "webhook_deliveries" ("project_id", "next_attempt_at") WHERE "status" = 'PENDING'`);
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_deliveries_due"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "idx_webhook_deliveries_due" ON "webhook_deliveries" ("next_attempt_at") WHERE "status" = 'PENDING'`);
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_deliveries_project_due"`);
  }
}
