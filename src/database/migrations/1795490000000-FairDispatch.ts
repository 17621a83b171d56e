import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 26: the dispatcher's claim takes projects in turn. It walks the projects that have deliveries
 * waiting (PENDING with a due time) in project order, one index probe per project, and reads a few due
 * deliveries of each: both through this index. Parked deliveries (no due time) are left out, so that a
 * paused distribution's backlog is never read by the walk.
 */
export class FairDispatch1795490000000 implements MigrationInterface {
  name = 'FairDispatch1795490000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE INDEX "idx_webhook_deliveries_project_due" ON "webhook_deliveries" ("project_id", "next_attempt_at")
            WHERE "status" = 'PENDING' AND "next_attempt_at" IS NOT NULL
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_deliveries_project_due"`);
  }
}
