import type { MigrationInterface, QueryRunner } from 'typeorm';

/** How many offending cards the refusal names (and how many more there are). */
const NAMED = 20;

/**
 * Issue 38: a card's invariant held by the database for every writer, and the card's redemption counters.
 * - `redeemed_points` (points spent on rewards less those given back by a rollback) and `redeemed_quantity`
 *   (redemptions not rolled back): 0 until redemption posts them (PointsPosting: REDEMPTION, REFUND).
 * - `CHK_vouchers_balance`: balance ≥ 0 and balance = points − expired_points − subtracted_points −
 *   redeemed_points; `CHK_vouchers_redeemed`: the counters ≥ 0 (a refund never gives back more than was spent).
 *
 * The cards are checked first, and the migration refuses, naming them, when a card breaks the invariant: a
 * CHECK cannot hold on such a card, and its ledger (not this migration) says what its columns should be. The
 * constraints are added NOT VALID: every write from this migration's commit on is checked, and adding them
 * holds the cards' table only for the moment of the ALTER (no scan); CardBalanceValidated, the next migration,
 * validates the existing rows in a transaction of its own, which reads the table without stopping its writers
 * (SHARE UPDATE EXCLUSIVE).
 */
export class CardBalanceCheck1795800000000 implements MigrationInterface {
  name = 'CardBalanceCheck1795800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const broken = (await queryRunner.query(
      `SELECT id, count(*) OVER () AS total FROM vouchers
       WHERE balance < 0 OR balance <> points - expired_points - subtracted_points
       ORDER BY id LIMIT ${NAMED}`,
    )) as { id: string; total: string }[];
    if (broken.length) {
      const more = Number(broken[0].total) - broken.length;
      throw new Error(
        `CardBalanceCheck: ${broken[0].total} card(s) break balance = points - expired_points - subtracted_points >= 0, which the CHECK this ` +
          `migration adds would refuse; set their columns from their ledger, then migrate again: ${broken.map((row) => row.id).join(', ')}${more > 0 ? ` and ${more} more` : ''}`,
      );
    }
    await queryRunner.query(
      `ALTER TABLE "vouchers" ADD "redeemed_points" bigint NOT NULL DEFAULT '0', ADD "redeemed_quantity" integer NOT NULL DEFAULT '0',
       ADD CONSTRAINT "CHK_vouchers_balance" CHECK ("balance" >= 0 AND "balance" = "points" - "expired_points" - "subtracted_points" - "redeemed_points") NOT VALID,
       ADD CONSTRAINT "CHK_vouchers_redeemed" CHECK ("redeemed_points" >= 0 AND "redeemed_quantity" >= 0) NOT VALID`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "vouchers" DROP CONSTRAINT "CHK_vouchers_redeemed", DROP CONSTRAINT "CHK_vouchers_balance", DROP COLUMN "redeemed_quantity", DROP COLUMN "redeemed_points"`,
    );
  }
}
