import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 25: a card's point columns cannot overflow, and one entry that cannot be activated no longer
 * blocks the others.
 *
 * - `vouchers.points`, `balance`, `pending_points` and the ledger's `balance_after` become bigint, capped by
 *   a check at 2^53 - 1 (the largest integer a JSON number carries exactly); a change that would pass it
 *   is refused (an order: 400; an activation: the entry is set aside, below).
 * - `loyalty_voucher_json` takes bigint totals.
 * - `loyalty_pending_points.activation_error`: why the worker could not activate the entry. Such an entry
 *   stays PENDING (and counted in its card's `pending_points`) but leaves the due index, so batches and
 *   the sweep no longer take it first for ever; activating it by hand tries again.
 */
export class CardPointsBigint1795480000000 implements MigrationInterface {
  name = 'CardPointsBigint1795480000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION "loyalty_voucher_json"("vouchers", text, int, int, int, boolean)`);
    await queryRunner.query(`
            ALTER TABLE "vouchers"
                ALTER COLUMN "points" TYPE bigint,
                ALTER COLUMN "balance" TYPE bigint,
                ALTER COLUMN "pending_points" TYPE bigint
        `);
    await queryRunner.query(`
            ALTER TABLE "vouchers" ADD CONSTRAINT "CHK_vouchers_points_safe"
            CHECK ("points" <= 9007199254740991 AND "balance" <= 9007199254740991 AND "pending_points" <= 9007199254740991)
        `);
    await queryRunner.query(`ALTER TABLE "voucher_transactions" ALTER COLUMN "balance_after" TYPE bigint`);
    await queryRunner.query(`
            CREATE FUNCTION "loyalty_voucher_json"(v "vouchers", campaign_name text, points bigint, balance bigint, pending_points bigint, active boolean)
            RETURNS json LANGUAGE sql STABLE AS $$
                SELECT json_build_object('id', v.id, 'code', v.code, 'type', 'LOYALTY_CARD', 'campaign', campaign_name, 'campaign_id', v.campaign_id,
                    'holder_id', v.holder_id, 'loyalty_card', json_build_object('points', points, 'balance', balance, 'pending_points', pending_points),
                    'is_referral_code', false, 'active', coalesce(active, false), 'metadata', '{}'::json, 'created_at', loyalty_iso(v.created_at),
                    'updated_at', loyalty_iso(v.updated_at), 'object', 'voucher')
            $$
        `);
    await queryRunner.query(`ALTER TABLE "loyalty_pending_points" ADD "activation_error" text`);
    await queryRunner.query(`DROP INDEX "public"."idx_pending_points_due"`);
    await queryRunner.query(`
            CREATE INDEX "idx_pending_points_due" ON "loyalty_pending_points" ("activates_at", "voucher_id")
            WHERE "status" = 'PENDING' AND "activation_error" IS NULL
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idx_pending_points_due"`);
    await queryRunner.query(`CREATE INDEX "idx_pending_points_due" ON "loyalty_pending_points" ("activates_at", "voucher_id") WHERE "status" = 'PENDING'`);
    await queryRunner.query(`ALTER TABLE "loyalty_pending_points" DROP COLUMN "activation_error"`);
    await queryRunner.query(`DROP FUNCTION "loyalty_voucher_json"("vouchers", text, bigint, bigint, bigint, boolean)`);
    await queryRunner.query(`ALTER TABLE "voucher_transactions" ALTER COLUMN "balance_after" TYPE integer`);
    await queryRunner.query(`ALTER TABLE "vouchers" DROP CONSTRAINT "CHK_vouchers_points_safe"`);
    await queryRunner.query(`
            ALTER TABLE "vouchers"
                ALTER COLUMN "points" TYPE integer,
                ALTER COLUMN "balance" TYPE integer,
                ALTER COLUMN "pending_points" TYPE integer
        `);
    await queryRunner.query(`
            CREATE FUNCTION "loyalty_voucher_json"(v "vouchers", campaign_name text, points int, balance int, pending_points int, active boolean)
            RETURNS json LANGUAGE sql STABLE AS $$
                SELECT json_build_object('id', v.id, 'code', v.code, 'type', 'LOYALTY_CARD', 'campaign', campaign_name, 'campaign_id', v.campaign_id,
                    'holder_id', v.holder_id, 'loyalty_card', json_build_object('points', points, 'balance', balance, 'pending_points', pending_points),
                    'is_referral_code', false, 'active', coalesce(active, false), 'metadata', '{}'::json, 'created_at', loyalty_iso(v.created_at),
                    'updated_at', loyalty_iso(v.updated_at), 'object', 'voucher')
            $$
        `);
  }
}
