import type { MigrationInterface, QueryRunner } from "typeorm";

export class Webhooks1795445288881 implements MigrationInterface {
    name = 'Webhooks1795445288881'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            CREATE TABLE "distributions" (
                "id" text NOT NULL,
                "seq" BIGSERIAL NOT NULL,
                "project_id" text NOT NULL,
                "name" text NOT NULL,
                "trigger" text NOT NULL,
                "event_name" text,
                "target_url" text NOT NULL,
                "custom_headers" jsonb NOT NULL DEFAULT '{}',
                "metadata" jsonb NOT NULL DEFAULT '{}',
                "status" text NOT NULL DEFAULT 'ACTIVE',
                "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
                "updated_at" TIMESTAMP(3) WITH TIME ZONE,
                CONSTRAINT "PK_b73beffd2ed658ba71d8bd7d820" PRIMARY KEY ("id")
            )
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_distributions_active_trigger" ON "distributions" ("project_id", "trigger")
            WHERE "status" = 'ACTIVE'
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_distributions_project_seq" ON "distributions" ("project_id", "seq")
        `);
        await queryRunner.query(`
            CREATE TABLE "webhook_deliveries" (
                "id" text NOT NULL,
                "seq" BIGSERIAL NOT NULL,
                "project_id" text NOT NULL,
                "distribution_id" text NOT NULL,
                "event_id" text NOT NULL,
                "event_type" text NOT NULL,
                "status" text NOT NULL DEFAULT 'PENDING',
                "attempts_count" integer NOT NULL DEFAULT '0',
                "first_attempt_at" TIMESTAMP(3) WITH TIME ZONE,
                "next_attempt_at" TIMESTAMP(3) WITH TIME ZONE,
                "manual" boolean NOT NULL DEFAULT false,
                "lease_until" TIMESTAMP(3) WITH TIME ZONE,
                "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
                "delivered_at" TIMESTAMP(3) WITH TIME ZONE,
                CONSTRAINT "PK_535dd409947fb6d8fc6dfc0112a" PRIMARY KEY ("id")
            )
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_webhook_deliveries_due" ON "webhook_deliveries" ("next_attempt_at")
            WHERE "status" = 'PENDING'
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_webhook_deliveries_distribution_status_seq" ON "webhook_deliveries" ("distribution_id", "status", "seq")
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_webhook_deliveries_distribution_seq" ON "webhook_deliveries" ("distribution_id", "seq")
        `);
        await queryRunner.query(`
            CREATE UNIQUE INDEX "uq_webhook_deliveries_event" ON "webhook_deliveries" ("distribution_id", "event_id")
        `);
        await queryRunner.query(`
            CREATE TABLE "webhook_attempts" (
                "id" BIGSERIAL NOT NULL,
                "delivery_id" text NOT NULL,
                "at" TIMESTAMP(3) WITH TIME ZONE NOT NULL,
                "status_code" integer,
                "duration_ms" integer NOT NULL,
                "error" text,
                "response_excerpt" text,
                CONSTRAINT "PK_2de7e7887ad97de459adab62638" PRIMARY KEY ("id")
            )
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_webhook_attempts_delivery" ON "webhook_attempts" ("delivery_id", "id")
        `);
        await queryRunner.query(`
            CREATE TABLE "webhook_secrets" (
                "project_id" text NOT NULL,
                "secret" text NOT NULL,
                "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
                "previous_secret" text,
                "previous_expires_at" TIMESTAMP(3) WITH TIME ZONE,
                CONSTRAINT "PK_4641e4ffa42ed91412f75909466" PRIMARY KEY ("project_id")
            )
        `);
        await queryRunner.query(`
            ALTER TABLE "webhook_deliveries"
            ADD CONSTRAINT "FK_e2b93f73871bf716745cc1801fe" FOREIGN KEY ("distribution_id") REFERENCES "distributions"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
        await queryRunner.query(`
            ALTER TABLE "webhook_attempts"
            ADD CONSTRAINT "FK_0d56d91d61b827bb2079c256538" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
        // The relay's outbox: a narrow row per new event, written in the event's transaction (a statement-level
        // trigger over the inserted rows), deleted when relayed. events.relayed_at, which the relay was to set on
        // each event row, goes: rewriting a 2 KB row and its index entries per event cost a third of an activation.
        // Events written before this migration had no distribution to go to.
        await queryRunner.query(`DROP INDEX "public"."idx_events_unrelayed"`);
        await queryRunner.query(`ALTER TABLE "events" DROP COLUMN "relayed_at"`);
        await queryRunner.query(`
            CREATE TABLE "event_outbox" (
                "seq" bigint NOT NULL,
                "event_id" text NOT NULL,
                "project_id" text NOT NULL,
                "type" text NOT NULL,
                CONSTRAINT "PK_event_outbox" PRIMARY KEY ("seq")
            )
        `);
        // NOTIFY is delivered at commit, once per transaction and channel: the relay wakes when events exist,
        // once for a statement of 2,500. A missed one (no worker listening) is covered by the webhook sweep.
        await queryRunner.query(`
            CREATE FUNCTION "events_outbox"() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO "event_outbox" ("seq", "event_id", "project_id", "type") SELECT "seq", "id", "project_id", "type" FROM new_events;
                PERFORM pg_notify('loyalty_events', '');
                RETURN NULL;
            END $$
        `);
        await queryRunner.query(`
            CREATE TRIGGER "events_outbox" AFTER INSERT ON "events" REFERENCING NEW TABLE AS new_events
            FOR EACH STATEMENT EXECUTE FUNCTION "events_outbox"()
        `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP TRIGGER "events_outbox" ON "events"`);
        await queryRunner.query(`DROP FUNCTION "events_outbox"()`);
        await queryRunner.query(`DROP TABLE "event_outbox"`);
        await queryRunner.query(`ALTER TABLE "events" ADD "relayed_at" TIMESTAMP WITH TIME ZONE`);
        await queryRunner.query(`CREATE INDEX "idx_events_unrelayed" ON "events" ("seq") WHERE "relayed_at" IS NULL`);
        await queryRunner.query(`
            ALTER TABLE "webhook_attempts" DROP CONSTRAINT "FK_0d56d91d61b827bb2079c256538"
        `);
        await queryRunner.query(`
            ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "FK_e2b93f73871bf716745cc1801fe"
        `);
        await queryRunner.query(`
            DROP TABLE "webhook_secrets"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."idx_webhook_attempts_delivery"
        `);
        await queryRunner.query(`
            DROP TABLE "webhook_attempts"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."uq_webhook_deliveries_event"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."idx_webhook_deliveries_distribution_seq"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."idx_webhook_deliveries_distribution_status_seq"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."idx_webhook_deliveries_due"
        `);
        await queryRunner.query(`
            DROP TABLE "webhook_deliveries"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."idx_distributions_project_seq"
        `);
        await queryRunner.query(`
            DROP INDEX "public"."idx_distributions_active_trigger"
        `);
        await queryRunner.query(`
            DROP TABLE "distributions"
        `);
    }

}
