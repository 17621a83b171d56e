import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 38: validates the checks CardBalanceCheck added NOT VALID, over the cards that were there before. In a
 * transaction of its own (`npm start` and `cli.js migrate` run each migration in one): VALIDATE CONSTRAINT
 * reads the whole table under SHARE UPDATE EXCLUSIVE, which lets the API and the worker go on reading and
 * writing cards meanwhile (new writes were checked from CardBalanceCheck's commit on). CardBalanceCheck found no
 * card that breaks them, and none could be written since, so this does not fail.
 */
export class CardBalanceValidated1795800000001 implements MigrationInterface {
  name = 'CardBalanceValidated1795800000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "vouchers" VALIDATE CONSTRAINT "CHK_vouchers_balance"`);
    await queryRunner.query(`ALTER TABLE "vouchers" VALIDATE CONSTRAINT "CHK_vouchers_redeemed"`);
  }

  /** A validated constraint stays valid: CardBalanceCheck's down drops it. */
  public async down(): Promise<void> {}
}
