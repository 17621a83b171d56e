import type { MigrationInterface, QueryRunner } from 'typeorm';
import { applySqlFunctions, type SqlFunctionPins } from '../sql-functions.js';

/**
 * Issue 28: point buckets and their expiry, balance changes by hand.
 * - `loyalty_points_buckets`: one row per credit of a card, with its last day (`expires_at`) and the moment it
 *   expires (`expire_after`); existing cards get one bucket holding their balance, expiring under their
 *   campaign's rules from today (none without rules), so the invariant balance = Σ remaining of ACTIVE buckets
 *   holds from the start.
 * - the project's time zone (its days end there), the cards' expired and subtracted totals and next expiration, the earning rules'
 *   own expiration rules, the ledger's `source_id`, and its `points` widened to bigint (an expiry may take more
 *   than an integer's worth at once; the change rewrites the ledger table once).
 * - the functions that compute a bucket's dates, and the initial-points trigger that now makes a bucket too.
 */
export class PointBuckets1795560000000 implements MigrationInterface {
  name = 'PointBuckets1795560000000';
  /** The SQL functions it applies, pinned to their files as they were (docs/architecture.md, "SQL functions"). */
  static readonly sqlFunctions: SqlFunctionPins = {
    loyalty_points_expiry_date: '16d7223a9c9b187ad6157d0868e1cdb8646c86487c7a8ca7f921ff465a34fb7b',
    loyalty_points_expire_after: 'b3b48234553fcb772963d6984c2d9cbe66685911e24d39fb3acb959b85e5b2a3',
    vouchers_initial_points_ledger: '64a6db1f7086efd0dc1d43f6cbbf9d8b69d22078803120a46d47954703514738',
  };

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "loyalty_points_buckets" (
        "id" text NOT NULL,
        "project_id" text NOT NULL,
        "voucher_id" text NOT NULL,
        "campaign_id" text NOT NULL,
        "total_points" bigint NOT NULL,
        "remaining" bigint NOT NULL,
        "status" text NOT NULL DEFAULT 'ACTIVE',
        "expires_at" date,
        "expire_after" TIMESTAMP WITH TIME ZONE,
        "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP(3) WITH TIME ZONE,
        CONSTRAINT "CHK_points_buckets_remaining" CHECK ("remaining" >= 0 AND "remaining" <= "total_points"),
        CONSTRAINT "PK_bcb403dbff16e20c0be2a4bdc31" PRIMARY KEY ("id"),
        CONSTRAINT "FK_b936630abf2b768f50f24ea8c25" FOREIGN KEY ("voucher_id") REFERENCES "vouchers"("id") ON DELETE CASCADE ON UPDATE NO ACTION
      )`);
    await queryRunner.query(`CREATE INDEX "idx_points_buckets_due" ON "loyalty_points_buckets" ("project_id", "expire_after") WHERE "status" = 'ACTIVE' AND "expire_after" IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX "idx_points_buckets_card" ON "loyalty_points_buckets" ("voucher_id", "expires_at") WHERE "status" = 'ACTIVE'`);
    await queryRunner.query(`CREATE INDEX "idx_points_buckets_drain" ON "loyalty_points_buckets" ("voucher_id", "expires_at", "created_at") WHERE "status" = 'ACTIVE' AND "remaining" > 0`);
    await queryRunner.query(`ALTER TABLE "projects" ADD "time_zone" text NOT NULL DEFAULT 'UTC'`);
    await queryRunner.query(
      `ALTER TABLE "vouchers" ADD "expired_points" bigint NOT NULL DEFAULT '0', ADD "subtracted_points" bigint NOT NULL DEFAULT '0',
       ADD "next_expiration_date" date, ADD "next_expiration_points" bigint NOT NULL DEFAULT '0'`,
    );
    await queryRunner.query(`ALTER TABLE "earning_rules" ADD "expiration_rules" jsonb`);
    await queryRunner.query(`ALTER TABLE "voucher_transactions" ADD "source_id" text, ALTER COLUMN "points" TYPE bigint`);
    await applySqlFunctions(queryRunner, PointBuckets1795560000000.sqlFunctions);
    await queryRunner.query(`
      WITH dates AS MATERIALIZED (
        SELECT c.id AS campaign_id, e.expires_at, loyalty_points_expire_after(e.expires_at, p.time_zone) AS expire_after
        FROM "campaigns" c
        JOIN "projects" p ON p.id = c.project_id
        CROSS JOIN LATERAL (SELECT loyalty_points_expiry_date(c.voucher->'loyalty_card'->'expiration_rules', (now() AT TIME ZONE p.time_zone)::date) AS expires_at) e
      )
      INSERT INTO "loyalty_points_buckets" ("id", "project_id", "voucher_id", "campaign_id", "total_points", "remaining", "expires_at", "expire_after")
      SELECT 'lopb_' || left(replace(gen_random_uuid()::text, '-', ''), 18), v.project_id, v.id, v.campaign_id, v.balance, v.balance, d.expires_at, d.expire_after
      FROM "vouchers" v JOIN dates d ON d.campaign_id = v.campaign_id
      WHERE v.balance > 0`);
    await queryRunner.query(`
      UPDATE "vouchers" v SET "next_expiration_date" = b.expires_at, "next_expiration_points" = b.remaining
      FROM "loyalty_points_buckets" b WHERE b.voucher_id = v.id AND b.expires_at IS NOT NULL`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "loyalty_points_buckets"`);
    await queryRunner.query(`DROP FUNCTION "loyalty_points_expire_after"(date, text)`);
    await queryRunner.query(`DROP FUNCTION "loyalty_points_expiry_date"(jsonb, date)`);
    await queryRunner.query(`ALTER TABLE "voucher_transactions" DROP COLUMN "source_id", ALTER COLUMN "points" TYPE integer`);
    await queryRunner.query(`ALTER TABLE "earning_rules" DROP COLUMN "expiration_rules"`);
    await queryRunner.query(`ALTER TABLE "vouchers" DROP COLUMN "expired_points", DROP COLUMN "subtracted_points", DROP COLUMN "next_expiration_date", DROP COLUMN "next_expiration_points"`);
    await queryRunner.query(`ALTER TABLE "projects" DROP COLUMN "time_zone"`);
  }
}
