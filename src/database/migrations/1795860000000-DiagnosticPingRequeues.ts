import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Bookkeeping of the diagnostic ping sweep (DiagnosticPingSweep), so that pings whose jobs keep failing no
 * longer take every run's batch: `swept_at` (when the sweep last took a ping up; due again after the sweep's
 * age, the longest-waiting first) and `requeue_count` (jobs it enqueued again; the ping is FAILED at the
 * limit). Both columns are added without rewriting the table (a constant default, a nullable column). The
 * partial index of QUEUED pings becomes per project, by when a ping was last enqueued, for the sweep's
 * per-project shares.
 */
export class DiagnosticPingRequeues1795860000000 implements MigrationInterface {
  name = 'DiagnosticPingRequeues1795860000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "diagnostic_pings" ADD "swept_at" TIMESTAMP WITH TIME ZONE, ADD "requeue_count" integer NOT NULL DEFAULT '0'`);
    await queryRunner.query(`DROP INDEX "idx_diagnostic_pings_queued"`);
    await queryRunner.query(`CREATE INDEX "idx_diagnostic_pings_queued" ON "diagnostic_pings" ("project_id", (coalesce("swept_at", "created_at"))) WHERE "status" = 'QUEUED'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "idx_diagnostic_pings_queued"`);
    // Pings given up stay FAILED: the earlier version's sweep and worker leave every status but QUEUED alone.
    await queryRunner.query(`CREATE INDEX "idx_diagnostic_pings_queued" ON "diagnostic_pings" ("created_at") WHERE "status" = 'QUEUED'`);
    await queryRunner.query(`ALTER TABLE "diagnostic_pings" DROP COLUMN "requeue_count", DROP COLUMN "swept_at"`);
  }
}
