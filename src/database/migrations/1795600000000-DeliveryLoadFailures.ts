import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 36: the dispatcher claims deliveries without their events' payloads and reads the payloads apart,
 * in bounded loads. A delivery whose payload could not be read (the load failed on its own, e.g. past the
 * statement timeout) is given back and counted here; at the third count its attempt is recorded as failed,
 * so the retry schedule, FAILED and PAUSED apply. A recorded attempt resets it. With a constant default,
 * adding the column rewrites no row.
 */
export class DeliveryLoadFailures1795600000000 implements MigrationInterface {
  name = 'DeliveryLoadFailures1795600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" ADD "load_failures" integer NOT NULL DEFAULT 0`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" DROP COLUMN "load_failures"`);
  }
}
