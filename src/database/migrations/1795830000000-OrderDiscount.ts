import type { MigrationInterface, QueryRunner } from 'typeorm';
import { applySqlFunctions, type SqlFunctionPins } from '../sql-functions.js';

/**
 * Issue 38 (a Should of the rewards contract): an order keeps the discount its COIN ("pay with points")
 * redemptions gave it, `orders.discount_amount` (minor units, ≥ 0), so that its answers say `total_amount =
 * amount − discount_amount` (never below 0) and earning on it counts that amount (docs/rewards.md). The orders that
 * COIN redemptions already discounted get the sum of the discounts of those not rolled back (capped at the
 * order's amount): a constant default adds the column without rewriting the table; the backfill touches only
 * orders that have a redemption. The pending-points events' order (`loyalty_order_json`) says the same
 * `total_amount` and carries `discount_amount` when there is one.
 */
export class OrderDiscount1795830000000 implements MigrationInterface {
  name = 'OrderDiscount1795830000000';
  /** The SQL functions it applies, pinned to their files as they were (docs/architecture.md, "SQL functions"). */
  static readonly sqlFunctions: SqlFunctionPins = {
    loyalty_order_json: '16569783f4d91f9b5476a8419142cb49c4b34861ccc7933f6ecb97b065b187a4',
  };

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "orders" ADD "discount_amount" bigint NOT NULL DEFAULT 0`);
    await queryRunner.query(`ALTER TABLE "orders" ADD CONSTRAINT "chk_orders_discount" CHECK ("discount_amount" >= 0)`);
    await queryRunner.query(`
      UPDATE "orders" o SET "discount_amount" = least(o."amount", d."discount")
        FROM (SELECT "project_id", "order_id", sum(coalesce(("snapshot"->'order'->>'applied_discount_amount')::bigint, 0)) AS "discount"
                FROM "redemptions"
               WHERE "object" = 'redemption' AND "status" = 'SUCCEEDED' AND "order_id" IS NOT NULL
               GROUP BY "project_id", "order_id") d
       WHERE o."id" = d."order_id" AND o."project_id" = d."project_id" AND d."discount" > 0`);
    await applySqlFunctions(queryRunner, OrderDiscount1795830000000.sqlFunctions);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    // loyalty_order_json as BoundedEvents applied it (without the column), before the column goes.
    await queryRunner.query(`CREATE OR REPLACE FUNCTION "loyalty_order_json"(o "orders") RETURNS json LANGUAGE sql STABLE AS $$
    SELECT (left(json_strip_nulls(json_build_object('id', o.id, 'source_id', o.source_id, 'status', o.status, 'customer_id', o.customer_id,
        'amount', o.amount, 'total_amount', o.amount, 'created_at', loyalty_iso(o.created_at), 'updated_at', loyalty_iso(o.updated_at)))::text, -1)
      || CASE WHEN jsonb_array_length(o.items) > 10
              THEN ', "items" : ' || jsonb_path_query_array(o.items, '$[0 to 9]')::text || ', "items_omitted" : ' || (jsonb_array_length(o.items) - 10)
              ELSE ', "items" : ' || o.items::text END
      || ', "metadata" : ' || o.metadata::text || ', "object" : "order"}')::json
$$;`);
    await queryRunner.query(`ALTER TABLE "orders" DROP CONSTRAINT "chk_orders_discount"`);
    await queryRunner.query(`ALTER TABLE "orders" DROP COLUMN "discount_amount"`);
  }
}
