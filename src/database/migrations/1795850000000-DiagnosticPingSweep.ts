import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The worker's diagnostic ping sweep (DiagnosticPingSweep) reads the oldest QUEUED pings; DONE rows, which are
 * nearly all of them, stay out of this partial index.
 */
export class DiagnosticPingSweep1795850000000 implements MigrationInterface {
  name = 'DiagnosticPingSweep1795850000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "idx_diagnostic_pings_queued" ON "diagnostic_pings" ("created_at") WHERE "status" = 'QUEUED'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "idx_diagnostic_pings_queued"`);
  }
}
