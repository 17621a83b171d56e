import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 29: asynchronous actions (src/async-actions/), Voucherify's answer to work it does in bulk. The
 * campaign deletion records one (CAMPAIGN.VOUCHERS_DELETE, DONE) in its own transaction. One index serves a
 * project's list, newest first; the other the worker's sweep, which deletes actions past their time to live.
 */
export class AsyncActions1795573000000 implements MigrationInterface {
  name = 'AsyncActions1795573000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "async_actions" (
                "id" text NOT NULL,
                "project_id" text NOT NULL,
                "type" text NOT NULL,
                "status" text NOT NULL,
                "request_id" text,
                "progress" integer NOT NULL,
                "result" jsonb,
                "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL,
                "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL,
                CONSTRAINT "pk_async_actions" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`CREATE INDEX "idx_async_actions_project_created" ON "async_actions" ("project_id", "created_at", "id")`);
    await queryRunner.query(`CREATE INDEX "idx_async_actions_created_at" ON "async_actions" ("created_at")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idx_async_actions_created_at"`);
    await queryRunner.query(`DROP INDEX "public"."idx_async_actions_project_created"`);
    await queryRunner.query(`DROP TABLE "async_actions"`);
  }
}
