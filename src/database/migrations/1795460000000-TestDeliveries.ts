import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Test deliveries (`POST /v1/distributions/{id}/test`, for the dashboard's "Send test"): a delivery of a
 * sample event, which has no row in `events`; the flag tells the sender to build the sample instead.
 */
export class TestDeliveries1795460000000 implements MigrationInterface {
    name = 'TestDeliveries1795460000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "webhook_deliveries" ADD "test" boolean NOT NULL DEFAULT false`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "webhook_deliveries" DROP COLUMN "test"`);
    }
}
