import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/app/database/database.options.js';
import { testConfig } from '../support/harness.js';

describe('entities and migrations', () => {
  it('agree: after all migrations, TypeORM would generate no schema change', async () => {
    const dataSource = new DataSource(dataSourceOptions(testConfig(), 'loyalty-schema-test', 1));
    await dataSource.initialize();
    try {
      expect(await dataSource.showMigrations()).toBe(false);
      const pending = await dataSource.driver.createSchemaBuilder().log();
      expect(pending.upQueries.map((q) => q.query)).toEqual([]);
    } finally {
      await dataSource.destroy();
    }
  });
});
