import type { MigrationInterface, QueryRunner } from "typeorm";

export class Init1795267621531 implements MigrationInterface {
    name = 'Init1795267621531'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            CREATE TABLE "projects" (
                "id" text NOT NULL,
                "name" text NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_6271df0a7aed1d6c0691ce6ac50" PRIMARY KEY ("id")
            )
        `);
        await queryRunner.query(`
            CREATE TABLE "app_keys" (
                "app_id" text NOT NULL,
                "project_id" text NOT NULL,
                "token_sha256" bytea NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_3aede00e0dc1ee6d2f595af6204" PRIMARY KEY ("app_id")
            )
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_app_keys_project_id" ON "app_keys" ("project_id")
        `);
        await queryRunner.query(`
            CREATE TABLE "diagnostic_pings" (
                "id" text NOT NULL,
                "project_id" text NOT NULL,
                "status" text NOT NULL,
                "note" text,
                "work_ms" integer NOT NULL DEFAULT '0',
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "processed_at" TIMESTAMP WITH TIME ZONE,
                "processed_by" text,
                CONSTRAINT "PK_c79fafb8cd85767f7d40e2a4c41" PRIMARY KEY ("id")
            )
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_diagnostic_pings_project_created" ON "diagnostic_pings" ("project_id", "created_at")
        `);
        await queryRunner.query(`
            ALTER TABLE "app_keys"
            ADD CONSTRAINT "fk_app_keys_project" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            ALTER TABLE "app_keys" DROP CONSTRAINT "fk_app_keys_project"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."idx_diagnostic_pings_project_created"
        `);
        await queryRunner.query(`
            DROP TABLE "diagnostic_pings"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."idx_app_keys_project_id"
        `);
        await queryRunner.query(`
            DROP TABLE "app_keys"
        `);
        await queryRunner.query(`
            DROP TABLE "projects"
        `);
    }

}
