import type { MigrationInterface, QueryRunner } from "typeorm";

export class Members1795272441596 implements MigrationInterface {
    name = 'Members1795272441596'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            CREATE TABLE "customers" (
                "id" text NOT NULL,
                "project_id" text NOT NULL,
                "source_id" text,
                "name" text,
                "description" text,
                "email" text,
                "phone" text,
                "birthdate" text,
                "address" jsonb,
                "metadata" jsonb NOT NULL DEFAULT '{}',
                "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
                "updated_at" TIMESTAMP(3) WITH TIME ZONE,
                CONSTRAINT "PK_133ec679a801fab5e070f73d3ea" PRIMARY KEY ("id")
            )
        `);
        await queryRunner.query(`
            CREATE UNIQUE INDEX "uq_customers_project_source" ON "customers" ("project_id", "source_id")
            WHERE "source_id" IS NOT NULL
        `);
        await queryRunner.query(`
            CREATE TABLE "members" (
                "id" text COLLATE "C" NOT NULL,
                "project_id" text NOT NULL,
                "program_id" text NOT NULL,
                "customer_id" text COLLATE "C" NOT NULL,
                "status" text NOT NULL DEFAULT 'ACTIVE',
                "metadata" jsonb NOT NULL DEFAULT '{}',
                "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
                "updated_at" TIMESTAMP(3) WITH TIME ZONE,
                CONSTRAINT "PK_28b53062261b996d9c99fa12404" PRIMARY KEY ("id")
            )
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_members_program_status_created" ON "members" ("program_id", "status", "created_at", "id")
            WHERE "status" <> 'DELETED'
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_members_program_status_customer" ON "members" ("program_id", "status", "customer_id")
            WHERE "status" <> 'DELETED'
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_members_program_created" ON "members" ("program_id", "created_at", "id")
            WHERE "status" <> 'DELETED'
        `);
        await queryRunner.query(`
            CREATE UNIQUE INDEX "uq_members_program_customer" ON "members" ("program_id", "customer_id")
            WHERE "status" <> 'DELETED'
        `);
        await queryRunner.query(`
            ALTER TABLE "vouchers"
            ADD "points" integer NOT NULL DEFAULT '0'
        `);
        await queryRunner.query(`
            ALTER TABLE "vouchers"
            ADD "balance" integer NOT NULL DEFAULT '0'
        `);
        await queryRunner.query(`
            ALTER TABLE "vouchers"
            ADD "pending_points" integer NOT NULL DEFAULT '0'
        `);
        await queryRunner.query(`
            ALTER TABLE "vouchers"
            ADD "member_id" text
        `);
        await queryRunner.query(`
            ALTER TABLE "vouchers"
            ADD "holder_id" text
        `);
        await queryRunner.query(`
            ALTER TABLE "vouchers"
            ADD "published_at" TIMESTAMP(3) WITH TIME ZONE
        `);
        await queryRunner.query(`
            ALTER TABLE "vouchers"
            ADD "updated_at" TIMESTAMP(3) WITH TIME ZONE
        `);
        // Card times are shown with milliseconds; stored the same, so a shown time is an exact bound.
        await queryRunner.query(`
            ALTER TABLE "vouchers" ALTER COLUMN "created_at" TYPE TIMESTAMP(3) WITH TIME ZONE
        `);
        // Cards generated before this migration start with their initial points as points and balance.
        await queryRunner.query(`
            UPDATE "vouchers" SET "points" = "initial_points", "balance" = "initial_points"
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_vouchers_holder" ON "vouchers" ("holder_id")
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_vouchers_member" ON "vouchers" ("member_id")
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_vouchers_campaign_free" ON "vouchers" ("campaign_id", "id")
            WHERE "member_id" IS NULL
        `);
        await queryRunner.query(`
            ALTER TABLE "vouchers"
            ADD CONSTRAINT "FK_b5b5248a8e703811ff86018173e" FOREIGN KEY ("member_id") REFERENCES "members"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
        await queryRunner.query(`
            ALTER TABLE "vouchers"
            ADD CONSTRAINT "FK_7a2558ca7599c52464f05e2b47a" FOREIGN KEY ("holder_id") REFERENCES "customers"("id") ON DELETE NO ACTION ON UPDATE NO ACTION
        `);
        await queryRunner.query(`
            ALTER TABLE "members"
            ADD CONSTRAINT "FK_cbde60bc0da197f1f897b3b1464" FOREIGN KEY ("program_id") REFERENCES "loyalty_programs"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
        await queryRunner.query(`
            ALTER TABLE "members"
            ADD CONSTRAINT "FK_4b5f823f704a364ee1bece6780c" FOREIGN KEY ("customer_id") REFERENCES "customers"("id") ON DELETE NO ACTION ON UPDATE NO ACTION
        `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            ALTER TABLE "members" DROP CONSTRAINT "FK_4b5f823f704a364ee1bece6780c"
        `);
        await queryRunner.query(`
            ALTER TABLE "members" DROP CONSTRAINT "FK_cbde60bc0da197f1f897b3b1464"
        `);
        await queryRunner.query(`
            ALTER TABLE "vouchers" DROP CONSTRAINT "FK_7a2558ca7599c52464f05e2b47a"
        `);
        await queryRunner.query(`
            ALTER TABLE "vouchers" DROP CONSTRAINT "FK_b5b5248a8e703811ff86018173e"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."idx_vouchers_campaign_free"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."idx_vouchers_member"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."idx_vouchers_holder"
        `);
        await queryRunner.query(`
            ALTER TABLE "vouchers" DROP COLUMN "updated_at"
        `);
        await queryRunner.query(`
            ALTER TABLE "vouchers" ALTER COLUMN "created_at" TYPE TIMESTAMP WITH TIME ZONE
        `);
        await queryRunner.query(`
            ALTER TABLE "vouchers" DROP COLUMN "published_at"
        `);
        await queryRunner.query(`
            ALTER TABLE "vouchers" DROP COLUMN "holder_id"
        `);
        await queryRunner.query(`
            ALTER TABLE "vouchers" DROP COLUMN "member_id"
        `);
        await queryRunner.query(`
            ALTER TABLE "vouchers" DROP COLUMN "pending_points"
        `);
        await queryRunner.query(`
            ALTER TABLE "vouchers" DROP COLUMN "balance"
        `);
        await queryRunner.query(`
            ALTER TABLE "vouchers" DROP COLUMN "points"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."uq_members_program_customer"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."idx_members_program_created"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."idx_members_program_status_customer"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."idx_members_program_status_created"
        `);
        await queryRunner.query(`
            DROP TABLE "members"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."uq_customers_project_source"
        `);
        await queryRunner.query(`
            DROP TABLE "customers"
        `);
    }

}
