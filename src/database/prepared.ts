import { createHash } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';

/**
 * A statement that PostgreSQL parses once per connection (a named prepared statement), for the statements
 * every paid order and activation batch sends: parsing and planning cost PostgreSQL about as much as running
 * them (bench/README.md, "Paid orders"). After five runs PostgreSQL also keeps one generic plan where it
 * judges it no worse than planning each run (the earning rules, for one); where it does not (the pending
 * events' INSERT), each run is still planned. node-postgres prepares a statement given as `{ name, text }` on
 * first use on each connection and binds it afterwards; TypeORM hands the object through to it unchanged.
 * The name carries a hash of the text, so a changed statement is prepared anew.
 */
export interface PreparedStatement {
  readonly name: string;
  readonly text: string;
}

export function prepared(name: string, text: string): PreparedStatement {
  return Object.freeze({ name: `${name}_${createHash('sha1').update(text).digest('hex').slice(0, 8)}`, text });
}

/** Runs a prepared statement in a transaction or on the pool; the rows (UPDATE and DELETE: `[rows, count]`, as TypeORM answers). */
export function runPrepared<T>(on: EntityManager | DataSource, statement: PreparedStatement, params: unknown[]): Promise<T> {
  return on.query(statement as unknown as string, params) as Promise<T>;
}
