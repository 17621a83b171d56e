import pg from 'pg';
import { createPgClient } from './pg-client.js';

/** PostgreSQL's invalid_catalog_name: the database named at connection does not exist. */
const NO_SUCH_DATABASE = '3D000';

/**
 * Creates the database named in the URL when it does not exist yet. It connects to that database first:
 * when it exists (always, once deployed) that is all, so a role without access to `postgres` (a managed
 * server, a pooler that knows only the service's database) does not need one. Only when it does not exist
 * does it connect to the server's `postgres` maintenance database to create it. Safe when several
 * processes race: "already exists" is success.
 */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const target = createPgClient(databaseUrl, { connectTimeoutMs: 5_000 });
  try {
    await target.connect();
    return false;
  } catch (error) {
    if ((error as { code?: string }).code !== NO_SUCH_DATABASE) throw error;
  } finally {
    await target.end().catch(() => undefined);
  }
  const { name, client } = await connectToServer(databaseUrl);
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return false;
    try {
      await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
      return true;
    } catch (error) {
      // 42P04 duplicate_database; 23505 when another process's CREATE DATABASE of the same name commits first.
      if (['42P04', '23505'].includes((error as { code?: string }).code ?? '')) return false;
      throw error;
    }
  } finally {
    await client.end();
  }
}

export async function dropDatabase(databaseUrl: string): Promise<void> {
  const { name, client } = await connectToServer(databaseUrl);
  try {
    await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/** The database named in the URL, and a connection to the same server's `postgres` database. */
async function connectToServer(databaseUrl: string): Promise<{ name: string; client: pg.Client }> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!name) throw new Error('DATABASE_URL names no database');
  url.pathname = '/postgres';
  const client = createPgClient(url.toString(), { connectTimeoutMs: 5_000 });
  await client.connect();
  return { name, client };
}
