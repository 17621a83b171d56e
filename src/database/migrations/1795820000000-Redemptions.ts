import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 38: redemptions of rewards with a loyalty card and their rollbacks (src/redemptions/), one table:
 * `r_…` and `rr_…` rows; a rollback names its redemption, unique (a redemption is rolled back once); the
 * buckets a redemption drained, for its rollback; the lists' order (`seq`) per project and per card. The card's
 * permanent deletion takes its redemptions with it (cascade).
 */
export class Redemptions1795820000000 implements MigrationInterface {
  name = 'Redemptions1795820000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "redemptions" (
        "id" text NOT NULL,
        "project_id" text NOT NULL,
        "object" text NOT NULL,
        "redemption_id" text,
        "status" text NOT NULL,
        "voucher_id" text NOT NULL,
        "campaign_id" text NOT NULL,
        "customer_id" text,
        "reward_id" text NOT NULL,
        "assignment_id" text NOT NULL,
        "points" bigint NOT NULL,
        "buckets" jsonb NOT NULL DEFAULT '[]',
        "target_card_id" text,
        "target_points" bigint,
        "order_id" text,
        "tracking_id" text,
        "reason" text,
        "metadata" jsonb,
        "transaction_id" text NOT NULL,
        "snapshot" jsonb NOT NULL,
        "seq" BIGSERIAL NOT NULL,
        "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "chk_redemptions_object" CHECK ("object" IN ('redemption', 'redemption_rollback')),
        CONSTRAINT "chk_redemptions_status" CHECK ("status" IN ('SUCCEEDED', 'ROLLED_BACK')),
        CONSTRAINT "pk_redemptions" PRIMARY KEY ("id"),
        CONSTRAINT "fk_redemptions_voucher" FOREIGN KEY ("voucher_id") REFERENCES "vouchers"("id") ON DELETE CASCADE ON UPDATE NO ACTION
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_redemptions_rollback_of" ON "redemptions" ("redemption_id") WHERE "redemption_id" IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX "idx_redemptions_project_seq" ON "redemptions" ("project_id", "seq")`);
    await queryRunner.query(`CREATE INDEX "idx_redemptions_card_seq" ON "redemptions" ("voucher_id", "seq")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "redemptions"`);
  }
}
