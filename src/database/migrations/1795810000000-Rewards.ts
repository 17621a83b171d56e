import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 38: the reward catalogue and the rewards' assignments to loyalty campaigns (src/rewards/).
 * - `rewards`: `stock` null is unlimited; `redeemed` counts successful redemptions, never below 0 nor above a
 *   stock (the CHECK every writer meets; a redemption takes a unit with one conditional UPDATE).
 * - `reward_assignments`: a reward offered in a campaign at a price in points (null for COIN), once per
 *   campaign (the unique index), listed in the order made (`seq`), gone with the campaign's permanent deletion; a reward cannot be deleted
 *   while assigned (no cascade from `rewards`).
 */
export class Rewards1795810000000 implements MigrationInterface {
  name = 'Rewards1795810000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "rewards" (
        "id" text NOT NULL,
        "project_id" text NOT NULL,
        "name" text NOT NULL,
        "type" text NOT NULL,
        "parameters" jsonb NOT NULL,
        "stock" integer,
        "redeemed" integer NOT NULL DEFAULT '0',
        "attributes" jsonb NOT NULL DEFAULT '{}',
        "metadata" jsonb NOT NULL DEFAULT '{}',
        "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP(3) WITH TIME ZONE,
        CONSTRAINT "chk_rewards_type" CHECK ("type" IN ('CAMPAIGN', 'COIN', 'MATERIAL')),
        CONSTRAINT "chk_rewards_stock" CHECK ("redeemed" >= 0 AND ("stock" IS NULL OR "redeemed" <= "stock")),
        CONSTRAINT "pk_rewards" PRIMARY KEY ("id")
      )`);
    await queryRunner.query(`CREATE INDEX "idx_rewards_project_created" ON "rewards" ("project_id", "created_at", "id")`);
    await queryRunner.query(`
      CREATE TABLE "reward_assignments" (
        "id" text NOT NULL,
        "project_id" text NOT NULL,
        "reward_id" text NOT NULL,
        "campaign_id" text NOT NULL,
        "points" integer,
        "seq" BIGSERIAL NOT NULL,
        "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP(3) WITH TIME ZONE,
        CONSTRAINT "chk_reward_assignments_points" CHECK ("points" IS NULL OR "points" >= 1),
        CONSTRAINT "pk_reward_assignments" PRIMARY KEY ("id"),
        CONSTRAINT "fk_reward_assignments_reward" FOREIGN KEY ("reward_id") REFERENCES "rewards"("id") ON DELETE NO ACTION ON UPDATE NO ACTION,
        CONSTRAINT "fk_reward_assignments_campaign" FOREIGN KEY ("campaign_id") REFERENCES "campaigns"("id") ON DELETE CASCADE ON UPDATE NO ACTION
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_reward_assignments_reward_campaign" ON "reward_assignments" ("reward_id", "campaign_id")`);
    await queryRunner.query(`CREATE INDEX "idx_reward_assignments_campaign_seq" ON "reward_assignments" ("campaign_id", "seq")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "reward_assignments"`);
    await queryRunner.query(`DROP TABLE "rewards"`);
  }
}
