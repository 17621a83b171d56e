import type { MigrationInterface, QueryRunner } from "typeorm";

export class LoyaltyCampaigns1795268201228 implements MigrationInterface {
    name = 'LoyaltyCampaigns1795268201228'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            CREATE TABLE "categories" (
                "id" text NOT NULL,
                "project_id" text NOT NULL,
                "name" text NOT NULL,
                "hierarchy" integer NOT NULL DEFAULT '0',
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_24dbc6126a28ff948da33e97d3b" PRIMARY KEY ("id")
            )
        `);
        await queryRunner.query(`
            CREATE UNIQUE INDEX "uq_categories_project_name" ON "categories" ("project_id", "name")
        `);
        await queryRunner.query(`
            CREATE TABLE "campaigns" (
                "id" text NOT NULL,
                "project_id" text NOT NULL,
                "name" text NOT NULL,
                "description" text,
                "type" text NOT NULL,
                "auto_join" boolean NOT NULL DEFAULT false,
                "use_voucher_metadata_schema" boolean NOT NULL DEFAULT false,
                "active" boolean NOT NULL DEFAULT true,
                "protected" boolean NOT NULL DEFAULT false,
                "start_date" TIMESTAMP WITH TIME ZONE,
                "expiration_date" TIMESTAMP WITH TIME ZONE,
                "validity_timeframe" jsonb,
                "validity_day_of_week" integer array,
                "validity_hours" jsonb,
                "activity_duration_after_publishing" text,
                "category_id" text,
                "metadata" jsonb NOT NULL DEFAULT '{}',
                "voucher" jsonb NOT NULL,
                "loyalty_tiers_expiration" jsonb,
                "access_assignments" jsonb NOT NULL DEFAULT '[]',
                "vouchers_target" integer NOT NULL DEFAULT '0',
                "vouchers_count" integer NOT NULL DEFAULT '0',
                "creation_status" text NOT NULL,
                "vouchers_generation_status" text NOT NULL,
                "generation_error" text,
                "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
                "updated_at" TIMESTAMP WITH TIME ZONE,
                "deleted_at" TIMESTAMP WITH TIME ZONE,
                CONSTRAINT "PK_831e3fcd4fc45b4e4c3f57a9ee4" PRIMARY KEY ("id")
            )
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_campaigns_generation_in_progress" ON "campaigns" ("vouchers_generation_status")
            WHERE "vouchers_generation_status" = 'IN_PROGRESS'
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_campaigns_project_created" ON "campaigns" ("project_id", "created_at", "id")
        `);
        await queryRunner.query(`
            CREATE UNIQUE INDEX "uq_campaigns_project_name_live" ON "campaigns" ("project_id", "name")
            WHERE "deleted_at" IS NULL
        `);
        await queryRunner.query(`
            CREATE TABLE "loyalty_programs" (
                "id" text NOT NULL,
                "project_id" text NOT NULL,
                "campaign_id" text NOT NULL,
                "metadata" jsonb NOT NULL DEFAULT '{}',
                "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "REL_af0a9a3e8d181b4928179c4881" UNIQUE ("campaign_id"),
                CONSTRAINT "PK_9911f010986d7730cc744f91ff4" PRIMARY KEY ("id")
            )
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_loyalty_programs_project_created" ON "loyalty_programs" ("project_id", "created_at", "id")
        `);
        await queryRunner.query(`
            CREATE TABLE "vouchers" (
                "id" text NOT NULL,
                "project_id" text NOT NULL,
                "campaign_id" text NOT NULL,
                "code" text NOT NULL,
                "type" text NOT NULL DEFAULT 'LOYALTY_CARD',
                "initial_points" integer NOT NULL DEFAULT '0',
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_ed1b7dd909a696560763acdbc04" PRIMARY KEY ("id")
            )
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_vouchers_campaign" ON "vouchers" ("campaign_id")
        `);
        await queryRunner.query(`
            CREATE UNIQUE INDEX "uq_vouchers_project_code" ON "vouchers" ("project_id", "code")
        `);
        await queryRunner.query(`
            CREATE TABLE "instance_secrets" (
                "name" text NOT NULL,
                "value" bytea NOT NULL,
                CONSTRAINT "PK_70c19fbe0a0c5eb8da58d29bbfc" PRIMARY KEY ("name")
            )
        `);
        // The key that signs list cursors: 256 bits from PostgreSQL's strong random source (gen_random_uuid).
        await queryRunner.query(`
            INSERT INTO "instance_secrets" ("name", "value")
            VALUES ('cursor', decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'))
        `);
        await queryRunner.query(`
            ALTER TABLE "projects"
            ADD "areas_and_stores" boolean NOT NULL DEFAULT false
        `);
        await queryRunner.query(`
            ALTER TABLE "categories"
            ADD CONSTRAINT "FK_d504dd30c6b8d8db9e932328e33" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
        await queryRunner.query(`
            ALTER TABLE "campaigns"
            ADD CONSTRAINT "FK_3093e59f7d8315d7d0ea8dbc7da" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
        await queryRunner.query(`
            ALTER TABLE "campaigns"
            ADD CONSTRAINT "FK_05e02ff530b163f0b8ebe409ab4" FOREIGN KEY ("category_id") REFERENCES "categories"("id") ON DELETE
            SET NULL ON UPDATE NO ACTION
        `);
        await queryRunner.query(`
            ALTER TABLE "loyalty_programs"
            ADD CONSTRAINT "FK_af0a9a3e8d181b4928179c4881c" FOREIGN KEY ("campaign_id") REFERENCES "campaigns"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
        await queryRunner.query(`
            ALTER TABLE "vouchers"
            ADD CONSTRAINT "FK_1703ace656df8c625aa4ce809c8" FOREIGN KEY ("campaign_id") REFERENCES "campaigns"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            ALTER TABLE "vouchers" DROP CONSTRAINT "FK_1703ace656df8c625aa4ce809c8"
        `);
        await queryRunner.query(`
            ALTER TABLE "loyalty_programs" DROP CONSTRAINT "FK_af0a9a3e8d181b4928179c4881c"
        `);
        await queryRunner.query(`
            ALTER TABLE "campaigns" DROP CONSTRAINT "FK_05e02ff530b163f0b8ebe409ab4"
        `);
        await queryRunner.query(`
            ALTER TABLE "campaigns" DROP CONSTRAINT "FK_3093e59f7d8315d7d0ea8dbc7da"
        `);
        await queryRunner.query(`
            ALTER TABLE "categories" DROP CONSTRAINT "FK_d504dd30c6b8d8db9e932328e33"
        `);
        await queryRunner.query(`
            ALTER TABLE "projects" DROP COLUMN "areas_and_stores"
        `);
        await queryRunner.query(`
            DROP TABLE "instance_secrets"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."uq_vouchers_project_code"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."idx_vouchers_campaign"
        `);
        await queryRunner.query(`
            DROP TABLE "vouchers"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."idx_loyalty_programs_project_created"
        `);
        await queryRunner.query(`
            DROP TABLE "loyalty_programs"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."uq_campaigns_project_name_live"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."idx_campaigns_project_created"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."idx_campaigns_generation_in_progress"
        `);
        await queryRunner.query(`
            DROP TABLE "campaigns"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."uq_categories_project_name"
        `);
        await queryRunner.query(`
            DROP TABLE "categories"
        `);
    }

}
