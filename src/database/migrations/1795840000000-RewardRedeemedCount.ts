import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 38's benchmark: the redemptions of a reward without a stock no longer take a unit on its row (which made
 * them queue there one at a time, bench/README.md "Redemptions"); its `redeemed` is counted from its SUCCEEDED
 * redemptions when it is read, through this partial index (RewardRepository's `redeemedSql`).
 */
export class RewardRedeemedCount1795840000000 implements MigrationInterface {
  name = 'RewardRedeemedCount1795840000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "idx_redemptions_reward_succeeded" ON "redemptions" ("project_id", "reward_id") WHERE "object" = 'redemption' AND "status" = 'SUCCEEDED'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "idx_redemptions_reward_succeeded"`);
  }
}
