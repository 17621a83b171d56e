import { AppKeyNamesRequired1795572950000 } from '../../src/database/migrations/1795572950000-AppKeyNamesRequired.js';
import { useMigrationDatabase } from '../support/migration-db.js';

/**
 * The AppKeyNamesRequired migration on keys made before names were required: a project's first key without
 * a name (or with the old bootstrap label) becomes `Primary`, a later one `Key <its UTC date>`, a name a
 * person chose stays; then the column refuses null. A database of its own, migrated up to the migration
 * before, filled by SQL as the earlier schema allows, then migrated to the end.
 */
describe('migration AppKeyNamesRequired on existing keys', () => {
  const database = useMigrationDatabase('key_names_migration', AppKeyNamesRequired1795572950000);

  it('names the unnamed keys Primary (a project\'s first) or Key <date>, keeps chosen names, then requires one', async () => {
    await database.fill(async (old) => {
      await old.query(`INSERT INTO projects (id, name) VALUES ('proj_a', 'a'), ('proj_b', 'b'), ('proj_c', 'c')`);
      await old.query(
        `INSERT INTO app_keys (app_id, project_id, token_sha256, name, created_at) VALUES
         ('a1', 'proj_a', '\\x00', NULL, '2026-01-02T10:00:00Z'),
         ('a2', 'proj_a', '\\x00', NULL, '2026-03-04T23:30:00-02:00'),
         ('a3', 'proj_a', '\\x00', 'checkout 2026-11', '2026-05-06T10:00:00Z'),
         ('b1', 'proj_b', '\\x00', 'BOOTSTRAP_APP_ID', '2026-01-02T10:00:00Z'),
         ('c1', 'proj_c', '\\x00', 'Primary', '2026-01-02T10:00:00Z'),
         ('c2', 'proj_c', '\\x00', NULL, '2026-01-02T10:00:00Z')`,
      );
    });
    await database.open(async (current) => {
      await current.runMigrations();
      expect(await current.query(`SELECT app_id, name FROM app_keys ORDER BY app_id`)).toEqual([
        { app_id: 'a1', name: 'Primary' },
        // 23:30 at -02:00 is the next day in UTC.
        { app_id: 'a2', name: 'Key 2026-03-05' },
        { app_id: 'a3', name: 'checkout 2026-11' },
        { app_id: 'b1', name: 'Primary' },
        { app_id: 'c1', name: 'Primary' },
        // The same moment as c1, later by app id.
        { app_id: 'c2', name: 'Key 2026-01-02' },
      ]);
      await expect(current.query(`INSERT INTO app_keys (app_id, project_id, token_sha256) VALUES ('a4', 'proj_a', '\\x00')`)).rejects.toThrow(/null value in column "name"/);
    });
  });
});
