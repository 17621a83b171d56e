import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 29: every application key has a name, because events caused with a key carry it
 * (`event_source.api_key.name`, required in Voucherify's webhook schema). Keys made before without one get
 * the rule keys made without a name follow from now on (ProjectRepository.addKey): a project's first key
 * (oldest, then by app id) is `Primary`, any other `Key <the UTC date it was made>`. The bootstrap key used
 * to be labelled `BOOTSTRAP_APP_ID`, a label the service chose, not an operator: it is its project's first
 * key, so it becomes `Primary` too. Names a person chose (`rotate-key --name`) are left as they are.
 */
export class AppKeyNamesRequired1795572950000 implements MigrationInterface {
  name = 'AppKeyNamesRequired1795572950000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            UPDATE "app_keys" k
               SET "name" = CASE
                     WHEN NOT EXISTS (
                       SELECT 1 FROM "app_keys" o
                        WHERE o."project_id" = k."project_id" AND (o."created_at", o."app_id") < (k."created_at", k."app_id")
                     ) THEN 'Primary'
                     ELSE 'Key ' || to_char(k."created_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD')
                   END
             WHERE k."name" IS NULL OR k."name" = 'BOOTSTRAP_APP_ID'
        `);
    await queryRunner.query(`ALTER TABLE "app_keys" ALTER COLUMN "name" SET NOT NULL`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    // The defaults stay: they are valid labels for the older schema too.
    await queryRunner.query(`ALTER TABLE "app_keys" ALTER COLUMN "name" DROP NOT NULL`);
  }
}
