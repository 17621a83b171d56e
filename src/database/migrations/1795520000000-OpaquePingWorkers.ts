import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 26: a diagnostic ping's `processed_by` no longer tells projects the worker's host name and pid; new
 * pings record the worker's opaque id (`wrk_` and 18 random hex characters, src/common/process/worker-id.ts).
 * The pings done before this keep being readable by their project, so their `host:pid` values are replaced
 * too: each distinct value by one random id (pings done by one process still share an id). Random rather
 * than a hash of the old value: a host name and a pid are few enough to guess, and a hash could be checked
 * against the guesses. Not reversible: the old values are gone (`down` leaves the ids).
 */
export class OpaquePingWorkers1795520000000 implements MigrationInterface {
  name = 'OpaquePingWorkers1795520000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            UPDATE "diagnostic_pings" p SET "processed_by" = m.id
            FROM (
                SELECT old, 'wrk_' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 18) AS id
                FROM (SELECT DISTINCT "processed_by" AS old FROM "diagnostic_pings" WHERE "processed_by" !~ '^wrk_[0-9a-f]{18}$') d
            ) m
            WHERE p."processed_by" = m.old
        `);
  }

  public async down(): Promise<void> {
    // The host names and pids are not kept anywhere: nothing to restore.
  }
}
