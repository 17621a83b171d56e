import type { MigrationInterface, QueryRunner } from "typeorm";

export class PendingPoints1795435292835 implements MigrationInterface {
    name = 'PendingPoints1795435292835'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            CREATE TABLE "events" (
                "id" text NOT NULL,
                "seq" BIGSERIAL NOT NULL,
                "project_id" text NOT NULL,
                "type" text NOT NULL,
                "entity_id" text NOT NULL,
                "group_id" text NOT NULL,
                "event_source" jsonb NOT NULL,
                "data" json NOT NULL,
                "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
                "relayed_at" TIMESTAMP WITH TIME ZONE,
                CONSTRAINT "PK_40731c7151fe4be3116e45ddf73" PRIMARY KEY ("id")
            )
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_events_project_type_seq" ON "events" ("project_id", "type", "seq")
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_events_project_seq" ON "events" ("project_id", "seq")
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_events_unrelayed" ON "events" ("seq")
            WHERE "relayed_at" IS NULL
        `);
        await queryRunner.query(`
            CREATE TABLE "earning_rules" (
                "id" text NOT NULL,
                "project_id" text NOT NULL,
                "campaign_id" text NOT NULL,
                "event" text NOT NULL,
                "loyalty" jsonb NOT NULL,
                "pending_points" jsonb,
                "banner" text,
                "active" boolean NOT NULL DEFAULT true,
                "start_date" TIMESTAMP(3) WITH TIME ZONE,
                "expiration_date" TIMESTAMP(3) WITH TIME ZONE,
                "metadata" jsonb NOT NULL DEFAULT '{}',
                "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
                "updated_at" TIMESTAMP(3) WITH TIME ZONE,
                CONSTRAINT "PK_d9799968a44c5df89bbbf894d47" PRIMARY KEY ("id")
            )
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_earning_rules_project_event_active" ON "earning_rules" ("project_id", "event")
            WHERE "active"
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_earning_rules_campaign_created" ON "earning_rules" ("campaign_id", "created_at", "id")
        `);
        await queryRunner.query(`
            CREATE TABLE "voucher_transactions" (
                "id" text NOT NULL,
                "seq" BIGSERIAL NOT NULL,
                "project_id" text NOT NULL,
                "voucher_id" text NOT NULL,
                "campaign_id" text NOT NULL,
                "type" text NOT NULL,
                "points" integer NOT NULL,
                "balance_after" integer NOT NULL,
                "order_id" text,
                "pending_points_id" text,
                "details" json NOT NULL,
                "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_bfa30e1f6c7c5f8b5a56fe8763d" PRIMARY KEY ("id")
            )
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_voucher_transactions_card_seq" ON "voucher_transactions" ("voucher_id", "seq")
        `);
        await queryRunner.query(`
            CREATE UNIQUE INDEX "uq_voucher_transactions_activation" ON "voucher_transactions" ("pending_points_id")
            WHERE "type" = 'PENDING_POINTS_ACTIVATION'
        `);
        await queryRunner.query(`
            CREATE TABLE "order_earnings" (
                "order_id" text NOT NULL,
                "earning_rule_id" text NOT NULL,
                "project_id" text NOT NULL,
                "voucher_id" text NOT NULL,
                "points" integer NOT NULL,
                "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_4914a7462dab3aca524a31cb897" PRIMARY KEY ("order_id", "earning_rule_id")
            )
        `);
        await queryRunner.query(`
            CREATE TABLE "orders" (
                "id" text NOT NULL,
                "project_id" text NOT NULL,
                "source_id" text,
                "status" text NOT NULL,
                "amount" bigint NOT NULL,
                "customer_id" text,
                "items" jsonb NOT NULL DEFAULT '[]',
                "metadata" jsonb NOT NULL DEFAULT '{}',
                "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
                "updated_at" TIMESTAMP(3) WITH TIME ZONE,
                CONSTRAINT "PK_710e2d4957aa5878dfe94e4ac2f" PRIMARY KEY ("id")
            )
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_orders_customer" ON "orders" ("customer_id")
        `);
        await queryRunner.query(`
            CREATE UNIQUE INDEX "uq_orders_project_source" ON "orders" ("project_id", "source_id")
            WHERE "source_id" IS NOT NULL
        `);
        await queryRunner.query(`
            CREATE TABLE "loyalty_pending_points" (
                "id" text COLLATE "C" NOT NULL,
                "project_id" text NOT NULL,
                "voucher_id" text NOT NULL,
                "campaign_id" text NOT NULL,
                "customer_id" text NOT NULL,
                "order_id" text NOT NULL,
                "earning_rule_id" text NOT NULL,
                "points" integer NOT NULL,
                "status" text NOT NULL DEFAULT 'PENDING',
                "activates_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL,
                "details" jsonb NOT NULL,
                "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
                "updated_at" TIMESTAMP(3) WITH TIME ZONE,
                "settled_at" TIMESTAMP(3) WITH TIME ZONE,
                CONSTRAINT "PK_7a6247baff41cd7e0adce1bbd92" PRIMARY KEY ("id")
            )
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_pending_points_order" ON "loyalty_pending_points" ("order_id")
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_pending_points_campaign" ON "loyalty_pending_points" ("campaign_id", "id")
            WHERE "status" = 'PENDING'
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_pending_points_card" ON "loyalty_pending_points" ("voucher_id", "id")
            WHERE "status" = 'PENDING'
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_pending_points_due" ON "loyalty_pending_points" ("activates_at", "voucher_id")
            WHERE "status" = 'PENDING'
        `);
        await queryRunner.query(`
            ALTER TABLE "earning_rules"
            ADD CONSTRAINT "FK_cab6f2cc9b9953f1439b8f1f918" FOREIGN KEY ("campaign_id") REFERENCES "campaigns"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
        await queryRunner.query(`
            ALTER TABLE "voucher_transactions"
            ADD CONSTRAINT "FK_5b4a89e11ac039afa630cd51e68" FOREIGN KEY ("voucher_id") REFERENCES "vouchers"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
        await queryRunner.query(`
            ALTER TABLE "loyalty_pending_points"
            ADD CONSTRAINT "FK_e944e4b63c87f074958873182db" FOREIGN KEY ("voucher_id") REFERENCES "vouchers"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
        // The payload pieces of the pending-points events (Voucherify's 2024-01-01 schemas), as SQL functions:
        // the worker builds an activation batch's events in one statement, in the database, instead of one
        // object tree per event in Node (bench/README.md). Every pending-points event is built with these.
        // Rounded to the millisecond as the timestamptz(3) columns are, in the format of JavaScript's toISOString().
        await queryRunner.query(`
            CREATE FUNCTION "loyalty_iso"(ts timestamptz) RETURNS text LANGUAGE sql IMMUTABLE AS $$
                SELECT to_char(ts::timestamptz(3) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
            $$
        `);
        await queryRunner.query(`
            CREATE FUNCTION "loyalty_customer_json"(c "customers") RETURNS json LANGUAGE sql STABLE AS $$
                SELECT json_build_object('id', c.id, 'source_id', c.source_id, 'name', c.name, 'email', c.email, 'metadata', c.metadata, 'object', 'customer')
            $$
        `);
        await queryRunner.query(`
            CREATE FUNCTION "loyalty_campaign_json"(c "campaigns") RETURNS json LANGUAGE sql STABLE AS $$
                SELECT json_build_object('id', c.id, 'name', c.name, 'campaign_type', 'LOYALTY_PROGRAM', 'type', c.type, 'auto_join', c.auto_join,
                    'join_once', true, 'active', c.active, 'category_id', c.category_id, 'metadata', c.metadata, 'start_date', loyalty_iso(c.start_date),
                    'expiration_date', loyalty_iso(c.expiration_date), 'description', c.description, 'created_at', loyalty_iso(c.created_at),
                    'updated_at', loyalty_iso(c.updated_at), 'object', 'campaign')
            $$
        `);
        await queryRunner.query(`
            CREATE FUNCTION "loyalty_order_json"(o "orders") RETURNS json LANGUAGE sql STABLE AS $$
                SELECT json_build_object('id', o.id, 'source_id', o.source_id, 'status', o.status, 'customer_id', o.customer_id, 'referrer_id', NULL,
                    'amount', o.amount, 'total_amount', o.amount, 'items', o.items, 'metadata', o.metadata, 'created_at', loyalty_iso(o.created_at),
                    'updated_at', loyalty_iso(o.updated_at), 'object', 'order')
            $$
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
        await queryRunner.query(`
            CREATE FUNCTION "loyalty_pending_points_json"(p "loyalty_pending_points") RETURNS json LANGUAGE sql STABLE AS $$
                SELECT json_build_object('id', p.id, 'voucher_id', p.voucher_id, 'campaign_id', p.campaign_id, 'customer_id', p.customer_id,
                    'order_id', p.order_id, 'points', p.points, 'activates_at', loyalty_iso(p.activates_at), 'status', p.status, 'details', p.details,
                    'created_at', loyalty_iso(p.created_at), 'updated_at', loyalty_iso(p.updated_at))
            $$
        `);
        // A card is born with the campaign's initial points; the ledger records them as its first transaction
        // (POINTS_ADDITION), so a card's balance is always the sum of its ledger. One statement-level
        // trigger covers every way cards are made (generation, enrolment, seed) at set speed.
        await queryRunner.query(`
            CREATE FUNCTION "vouchers_initial_points_ledger"() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO "voucher_transactions" ("id", "project_id", "voucher_id", "campaign_id", "type", "points", "balance_after", "details", "created_at")
                SELECT 'vtx_' || left(replace(gen_random_uuid()::text, '-', ''), 18), n.project_id, n.id, n.campaign_id, 'POINTS_ADDITION',
                       n.initial_points, n.initial_points,
                       json_build_object(
                           'balance', json_build_object('type', 'loyalty_card', 'total', n.initial_points, 'object', 'balance',
                               'points', n.initial_points, 'balance', n.initial_points, 'related_object', json_build_object('id', n.id, 'type', 'voucher')),
                           'reason', 'initial points of the campaign''s loyalty card'),
                       n.created_at
                FROM new_vouchers n WHERE n.initial_points > 0;
                RETURN NULL;
            END $$
        `);
        await queryRunner.query(`
            CREATE TRIGGER "vouchers_initial_points_ledger" AFTER INSERT ON "vouchers"
            REFERENCING NEW TABLE AS new_vouchers FOR EACH STATEMENT EXECUTE FUNCTION "vouchers_initial_points_ledger"()
        `);
        // Cards made before this migration: their initial points get the same first transaction.
        await queryRunner.query(`
            INSERT INTO "voucher_transactions" ("id", "project_id", "voucher_id", "campaign_id", "type", "points", "balance_after", "details", "created_at")
            SELECT 'vtx_' || left(replace(gen_random_uuid()::text, '-', ''), 18), v.project_id, v.id, v.campaign_id, 'POINTS_ADDITION',
                   v.initial_points, v.initial_points,
                   json_build_object(
                       'balance', json_build_object('type', 'loyalty_card', 'total', v.initial_points, 'object', 'balance',
                           'points', v.initial_points, 'balance', v.initial_points, 'related_object', json_build_object('id', v.id, 'type', 'voucher')),
                       'reason', 'initial points of the campaign''s loyalty card'),
                   v.created_at
            FROM "vouchers" v WHERE v.initial_points > 0
        `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP TRIGGER "vouchers_initial_points_ledger" ON "vouchers"`);
        for (const fn of ['loyalty_pending_points_json("loyalty_pending_points")', 'loyalty_voucher_json("vouchers", text, int, int, int, boolean)', 'loyalty_order_json("orders")', 'loyalty_campaign_json("campaigns")', 'loyalty_customer_json("customers")', 'loyalty_iso(timestamptz)']) {
            await queryRunner.query(`DROP FUNCTION ${fn}`);
        }
        await queryRunner.query(`DROP FUNCTION "vouchers_initial_points_ledger"()`);
        await queryRunner.query(`
            ALTER TABLE "loyalty_pending_points" DROP CONSTRAINT "FK_e944e4b63c87f074958873182db"
        `);
        await queryRunner.query(`
            ALTER TABLE "voucher_transactions" DROP CONSTRAINT "FK_5b4a89e11ac039afa630cd51e68"
        `);
        await queryRunner.query(`
            ALTER TABLE "earning_rules" DROP CONSTRAINT "FK_cab6f2cc9b9953f1439b8f1f918"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."idx_pending_points_due"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."idx_pending_points_card"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."idx_pending_points_campaign"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."idx_pending_points_order"
        `);
        await queryRunner.query(`
            DROP TABLE "loyalty_pending_points"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."uq_orders_project_source"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."idx_orders_customer"
        `);
        await queryRunner.query(`
            DROP TABLE "orders"
        `);
        await queryRunner.query(`
            DROP TABLE "order_earnings"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."uq_voucher_transactions_activation"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."idx_voucher_transactions_card_seq"
        `);
        await queryRunner.query(`
            DROP TABLE "voucher_transactions"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."idx_earning_rules_campaign_created"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."idx_earning_rules_project_event_active"
        `);
        await queryRunner.query(`
            DROP TABLE "earning_rules"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."idx_events_unrelayed"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."idx_events_project_seq"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."idx_events_project_type_seq"
        `);
        await queryRunner.query(`
            DROP TABLE "events"
        `);
    }

}
