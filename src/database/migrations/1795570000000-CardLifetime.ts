import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 29: the v2 card's `lifetime_bucket` (Voucherify's lifetime counts of a card). The card keeps the
 * counts no other column gives: points added by hand (`added_points`; the initial points are
 * `initial_points`) and its pending points activated and canceled, ever. Backfilled from the ledger and the
 * pending entries, so the invariants the tests check (added = Σ POINTS_ADDITION − initial points; activated
 * and canceled = Σ of the entries in that status) hold from the start.
 * The ALTER TABLE takes the cards' table whole (ACCESS EXCLUSIVE) until the migration commits, so its updates
 * of the cards need no row locks in id order: no other transaction can hold or ask for one meanwhile.
 */
export class CardLifetime1795570000000 implements MigrationInterface {
  name = 'CardLifetime1795570000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "vouchers" ADD "added_points" bigint NOT NULL DEFAULT '0', ADD "pending_activated_points" bigint NOT NULL DEFAULT '0',
       ADD "pending_canceled_points" bigint NOT NULL DEFAULT '0'`,
    );
    await queryRunner.query(`
      UPDATE vouchers v SET added_points = greatest(t.added - v.initial_points, 0)
      FROM (SELECT voucher_id, sum(points) AS added FROM voucher_transactions WHERE type = 'POINTS_ADDITION' GROUP BY voucher_id) t
      WHERE t.voucher_id = v.id`);
    await queryRunner.query(`
      UPDATE vouchers v SET pending_activated_points = p.activated, pending_canceled_points = p.canceled
      FROM (SELECT voucher_id, coalesce(sum(points) FILTER (WHERE status = 'ACTIVATED'), 0) AS activated,
                   coalesce(sum(points) FILTER (WHERE status = 'CANCELED'), 0) AS canceled
            FROM loyalty_pending_points WHERE status <> 'PENDING' GROUP BY voucher_id) p
      WHERE p.voucher_id = v.id`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "vouchers" DROP COLUMN "pending_canceled_points", DROP COLUMN "pending_activated_points", DROP COLUMN "added_points"`);
  }
}
