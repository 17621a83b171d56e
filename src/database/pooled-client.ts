import pg from 'pg';

/** How the pool's connections behave when they cannot rely on a session of their own (docs/scaling.md). */
export interface PooledClientOptions {
  /**
   * Settings every transaction gets with `SET LOCAL` (name → value), sent in the same round trip as its
   * `START TRANSACTION`: behind a transaction-mode pooler a connection's startup parameters are refused and a
   * session `SET` would stay on a server connection that other clients get next.
   */
  transactionSettings: Record<string, string>;
  /** false: a named prepared statement (`{ name, text }`) is sent as an unnamed one, parsed on each run. */
  preparedStatements: boolean;
}

/** TypeORM's own text for a transaction's start (PostgresQueryRunner.startTransaction). */
const START = 'START TRANSACTION';

/**
 * The `pg.Client` class of the pool (node-postgres's pool takes it as its `Client` option, through TypeORM's
 * `extra`): the same client, with `START TRANSACTION` followed by the settings (one simple-protocol round trip,
 * as before) and, when named statements are off, their names dropped. Null when neither is needed.
 */
export function pooledClientClass(options: PooledClientOptions): typeof pg.Client | null {
  const settings = Object.entries(options.transactionSettings);
  if (settings.length === 0 && options.preparedStatements) return null;
  const start = [START, ...settings.map(([name, value]) => `SET LOCAL ${name} = ${pg.escapeLiteral(value)}`)].join('; ');
  const rewrite = (config: unknown): unknown => {
    if (config === START) return start;
    if (!options.preparedStatements && typeof config === 'object' && config !== null && 'name' in config && 'text' in config) {
      const { name: _name, ...unnamed } = config as { name: string; text: string };
      return unnamed;
    }
    return config;
  };
  class PooledClient extends pg.Client {}
  // Defined on the prototype rather than as an override: pg.Client's query has a dozen typed overloads.
  Object.defineProperty(PooledClient.prototype, 'query', {
    value: function pooledQuery(this: pg.Client, config: unknown, ...rest: unknown[]): unknown {
      return (pg.Client.prototype.query as (...args: unknown[]) => unknown).call(this, rewrite(config), ...rest);
    },
    writable: true,
    configurable: true,
  });
  return PooledClient;
}
