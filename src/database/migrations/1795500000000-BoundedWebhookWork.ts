import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Webhook work bounded per request (issue 26): recover, resume and delete record what is asked on the
 * distribution's row and the worker does it in batches. `recover_since`/`recover_requested_at`: a recover
 * to carry out; `resume_requested_at`: parked deliveries to make due; status `DELETED`: deliveries to delete,
 * then the row. The partial index holds only distributions with such work, for the worker's sweep.
 */
export class BoundedWebhookWork1795500000000 implements MigrationInterface {
    name = 'BoundedWebhookWork1795500000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "distributions" ADD "recover_since" TIMESTAMP(3) WITH TIME ZONE`);
        await queryRunner.query(`ALTER TABLE "distributions" ADD "recover_requested_at" TIMESTAMP WITH TIME ZONE`);
        await queryRunner.query(`ALTER TABLE "distributions" ADD "resume_requested_at" TIMESTAMP WITH TIME ZONE`);
        await queryRunner.query(`
            CREATE INDEX "idx_distributions_pending_work" ON "distributions" ("id")
            WHERE "status" = 'DELETED' OR "recover_requested_at" IS NOT NULL OR "resume_requested_at" IS NOT NULL
        `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX "public"."idx_distributions_pending_work"`);
        await queryRunner.query(`DELETE FROM "distributions" WHERE "status" = 'DELETED'`);
        await queryRunner.query(`ALTER TABLE "distributions" DROP COLUMN "resume_requested_at"`);
        await queryRunner.query(`ALTER TABLE "distributions" DROP COLUMN "recover_requested_at"`);
        await queryRunner.query(`ALTER TABLE "distributions" DROP COLUMN "recover_since"`);
    }
}
