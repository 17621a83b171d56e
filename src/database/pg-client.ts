import pg from 'pg';

/** How a raw connection is made; an option left out keeps the driver's default. */
export interface PgClientOptions {
  /** `application_name`, which names the connection in pg_stat_activity. */
  applicationName?: string;
  connectTimeoutMs?: number;
  /** The client-side cap on a query; 0 or absent: none. */
  queryTimeoutMs?: number;
  keepAlive?: boolean;
  /** Session settings given at connection (`-c name=value` each), in this order. */
  settings?: Record<string, string>;
}

/**
 * A raw `pg.Client`, not connected yet, for the few connections outside TypeORM's pool: one with a role of
 * its own (LISTEN, session settings of its own) or to another database. Every such connection is made
 * here, so that each one's options are visible in one place.
 */
export function createPgClient(connectionString: string, options: PgClientOptions = {}): pg.Client {
  const settings = Object.entries(options.settings ?? {});
  return new pg.Client({
    connectionString,
    ...(options.applicationName !== undefined ? { application_name: options.applicationName } : {}),
    ...(settings.length ? { options: settings.map(([name, value]) => `-c ${name}=${value}`).join(' ') } : {}),
    ...(options.connectTimeoutMs !== undefined ? { connectionTimeoutMillis: options.connectTimeoutMs } : {}),
    ...(options.keepAlive !== undefined ? { keepAlive: options.keepAlive } : {}),
    ...(options.queryTimeoutMs !== undefined && options.queryTimeoutMs > 0 ? { query_timeout: options.queryTimeoutMs } : {}),
  });
}
