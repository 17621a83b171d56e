import type { MigrationInterface, QueryRunner } from 'typeorm';
import { lockCardsOf } from './lock-cards.js';

/** A card's ACTIVE buckets of one day (or the never-expiring ones) in the key of the unique index. */
const DAY = `coalesce(expires_at, 'infinity'::date)`;

/**
 * Issue 36: a card's buckets are bounded by the days its points expire on, and its expiry by chunks.
 * - Every card's ACTIVE buckets of one last day (and its never-expiring ones) become one: the oldest keeps its
 *   id and `created_at` and takes the others' `total_points` and `remaining` (summed) and the latest
 *   `expire_after` (they agree at the real length of a day), and is marked updated; the others are deleted. No ledger row or event
 *   names an ACTIVE bucket (expiry rows name the buckets they expire), and a card's balance and next
 *   expiration (its soonest day's sum) are the same before and after, so the cards' point columns stay.
 * - `uq_points_buckets_card_day`, unique (card, day) over ACTIVE buckets: the target of every credit's ON
 *   CONFLICT from now on, and the order of a card's bucket list (it replaces `idx_points_buckets_card`);
 *   `idx_points_buckets_card_due` (card, expire_after) for the expiry of a card's due buckets a chunk at a time.
 * - `vouchers.expiry_error` and `expiry_set_aside_at`: a card whose expiry the worker set aside.
 * Locks: the ALTER TABLE takes the cards' table whole (ACCESS EXCLUSIVE) until the migration commits, and
 * every write of buckets takes its cards first, so once it holds the table no other transaction writes
 * buckets; the cards whose buckets merge are then taken in id order (lockCardsOf, waiting for nobody), the
 * order of every data migration, before their buckets are written.
 */
export class BucketsPerDay1795610000000 implements MigrationInterface {
  name = 'BucketsPerDay1795610000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "vouchers" ADD "expiry_error" text, ADD "expiry_set_aside_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`CREATE INDEX "idx_vouchers_expiry_set_aside" ON "vouchers" ("id") WHERE "expiry_error" IS NOT NULL`);
    await lockCardsOf(queryRunner, `SELECT voucher_id FROM loyalty_points_buckets WHERE status = 'ACTIVE' GROUP BY voucher_id, ${DAY} HAVING count(*) > 1`);
    await queryRunner.query(`
      WITH ranked AS (
        SELECT id, row_number() OVER w AS n, count(*) OVER w AS buckets, sum(total_points) OVER w AS total, sum(remaining) OVER w AS remaining,
               max(expire_after) OVER w AS expire_after
        FROM loyalty_points_buckets WHERE status = 'ACTIVE'
        WINDOW w AS (PARTITION BY voucher_id, ${DAY} ORDER BY created_at, id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
      ), kept AS (
        UPDATE loyalty_points_buckets b SET total_points = r.total, remaining = r.remaining, expire_after = r.expire_after, updated_at = now()
        FROM ranked r WHERE b.id = r.id AND r.n = 1 AND r.buckets > 1
      )
      DELETE FROM loyalty_points_buckets b USING ranked r WHERE b.id = r.id AND r.n > 1`);
    await queryRunner.query(`DROP INDEX "idx_points_buckets_card"`);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_points_buckets_card_day" ON "loyalty_points_buckets" ("voucher_id", (${DAY})) WHERE "status" = 'ACTIVE'`);
    await queryRunner.query(
      `CREATE INDEX "idx_points_buckets_card_due" ON "loyalty_points_buckets" ("voucher_id", "expire_after") WHERE "status" = 'ACTIVE' AND "expire_after" IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    // Merged buckets stay merged: each holds its day's points, which is all the earlier schema needs.
    await queryRunner.query(`DROP INDEX "idx_points_buckets_card_due"`);
    await queryRunner.query(`DROP INDEX "uq_points_buckets_card_day"`);
    await queryRunner.query(`CREATE INDEX "idx_points_buckets_card" ON "loyalty_points_buckets" ("voucher_id", "expires_at") WHERE "status" = 'ACTIVE'`);
    await queryRunner.query(`DROP INDEX "idx_vouchers_expiry_set_aside"`);
    await queryRunner.query(`ALTER TABLE "vouchers" DROP COLUMN "expiry_set_aside_at", DROP COLUMN "expiry_error"`);
  }
}
