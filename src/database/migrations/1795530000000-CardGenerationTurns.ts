import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 26: card generation is shared between projects in turns, so one project's huge campaigns do not
 * hold everyone else's.
 *
 * - `generation_turn_at`: when the campaign's last turn started (kept once it is DONE). The worker takes
 *   the next turn from the project served longest ago (the latest turn of any of its campaigns, read
 *   from the new index), then that project's campaign served longest ago; never served comes first.
 * - `generation_lease_until`: the worker doing a turn holds the campaign until then, so two workers do
 *   not work one campaign at once; a worker that died leaves a lease that simply runs out.
 * - `generation_failures`: turns in a row that failed; the campaign is FAILED after the last one allowed.
 * The partial index on IN_PROGRESS campaigns already finds the candidates.
 */
export class CardGenerationTurns1795530000000 implements MigrationInterface {
  name = 'CardGenerationTurns1795530000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "campaigns"
                ADD "generation_turn_at" TIMESTAMP(3) WITH TIME ZONE,
                ADD "generation_lease_until" TIMESTAMP(3) WITH TIME ZONE,
                ADD "generation_failures" integer NOT NULL DEFAULT 0
        `);
    await queryRunner.query(`
            CREATE INDEX "idx_campaigns_project_turn" ON "campaigns" ("project_id", "generation_turn_at")
            WHERE "generation_turn_at" IS NOT NULL
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idx_campaigns_project_turn"`);
    await queryRunner.query(`ALTER TABLE "campaigns" DROP COLUMN "generation_failures", DROP COLUMN "generation_lease_until", DROP COLUMN "generation_turn_at"`);
  }
}
