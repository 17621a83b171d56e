import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';

/**
 * A read on the hottest paths (the key lookup of every request, a member list page) straight on the pg
 * pool TypeORM already holds: same connections, same settings, one statement outside any transaction.
 * TypeORM's `query()` wraps each call in a query runner (created, connected, logged, released) that cost
 * about a tenth of a member list page's CPU time in the API; everything else keeps using TypeORM.
 * pg's errors reach the exception filter as they are (it reads their `code` with or without TypeORM's
 * wrapper).
 */
export async function poolQuery<T>(dataSource: DataSource, text: string, values: unknown[]): Promise<T[]> {
  const pool = (dataSource.driver as unknown as { master?: Pool }).master;
  if (!pool) return (await dataSource.query(text, values)) as T[];
  return (await pool.query(text, values)).rows as T[];
}
