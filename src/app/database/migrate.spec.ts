import { loadConfig } from '../../config/app-config.js';
import { migrateOnStart } from './migrate.js';

describe('migrateOnStart', () => {
  /** A port nothing listens on: any connection attempt fails at once. */
  const nowhere = 'postgres://postgres@127.0.0.1:1/loyalty_nowhere';

  it('MIGRATE_ON_START=false: does not connect at all (a migrate Job does it)', async () => {
    expect(await migrateOnStart(loadConfig({ DATABASE_URL: nowhere, DATABASE_SESSION_URL: '', MIGRATE_ON_START: 'false' }))).toBeNull();
  });

  it('MIGRATE_ON_START=true: migrates on the session URL, not on DATABASE_URL', async () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:2/loyalty_pooled', DATABASE_SESSION_URL: nowhere, MIGRATE_ON_START: 'true' });
    await expect(migrateOnStart(config)).rejects.toThrow(/127\.0\.0\.1:1\b/);
  });
});
