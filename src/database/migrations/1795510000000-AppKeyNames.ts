import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 26: a project may hold several application keys (`cli.js rotate-key`, `revoke-key`); the table
 * always allowed it (the key is `app_id`), so only an optional label is added, for operators telling
 * keys apart ("Primary", "checkout 2026-11").
 */
export class AppKeyNames1795510000000 implements MigrationInterface {
  name = 'AppKeyNames1795510000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "app_keys" ADD "name" text`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "app_keys" DROP COLUMN "name"`);
  }
}
