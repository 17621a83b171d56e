import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import pg from 'pg';
import { AppConfig } from '../../../config/app-config.js';
import { createPgClient } from '../../../database/pg-client.js';

/** An event's payload as a load read it: its size in bytes, and its JSON text when the load returned it. */
export interface PayloadRow {
  id: string;
  bytes: number;
  data: string | null;
}

/**
 * Reads events' payloads by id ($1), each once, in the order asked. A payload is returned when it is at most
 * $2 bytes and the payloads returned before it in this load, with it, stay within $3 bytes; the first one
 * that fits $2 always is (so that every load makes progress). The others come back with their size only.
 * The texts are read once, into the materialized CTE, to be measured and returned.
 */
const LOAD = `
WITH read AS MATERIALIZED (
  SELECT e.id, array_position($1::text[], e.id) AS n, e.data::text AS text FROM events e WHERE e.id = ANY($1::text[])
), sized AS (
  SELECT id, n, text, octet_length(text) AS bytes FROM read
), running AS (
  SELECT id, text, bytes, sum(CASE WHEN bytes <= $2 THEN bytes ELSE 0 END) OVER (ORDER BY n) AS total FROM sized
)
SELECT id, bytes, CASE WHEN bytes <= $2 AND (total = bytes OR total <= $3) THEN text END AS data FROM running`;

/**
 * The events' payloads, read apart from the claims (PayloadLoader), on connections of their own (numbered by
 * the loader: three): a load is one named statement (parsed and planned once per connection, as the
 * dispatcher's claim), and a slow load of a huge event holds its own lane's connection, not one of the pool
 * the worker's other work shares. `statement_timeout` is the pool's (DATABASE_QUERY_TIMEOUT_MS): PostgreSQL
 * cancels a load that runs past it and the connection stays; any other failure drops the connection (the
 * client's own timeout, a second later, is for a connection that no longer answers), and the next load
 * reconnects.
 */
@Injectable()
export class EventPayloadRepository implements OnApplicationShutdown {
  private readonly connections = new Map<number, Promise<pg.Client>>();

  constructor(private readonly config: AppConfig) {}

  /**
   * The payloads of these events, none larger than `maxBytes`, together at most `roomBytes` (but the first
   * that fits), read on connection number `lane`; an event not found has no row.
   */
  async load(lane: number, eventIds: string[], maxBytes: number, roomBytes: number): Promise<PayloadRow[]> {
    const connection = this.connections.get(lane) ?? this.connect(lane);
    try {
      const { rows } = await (await connection).query<PayloadRow>({ name: 'load-event-payloads', text: LOAD, values: [eventIds, maxBytes, roomBytes] });
      return rows;
    } catch (error) {
      if (!(error instanceof pg.DatabaseError)) {
        if (this.connections.get(lane) === connection) this.connections.delete(lane);
        void connection.then((client) => client.end()).catch(() => undefined);
      }
      throw error;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    const connections = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(connections.map((connection) => connection.then((client) => client.end()).catch(() => undefined)));
  }

  private connect(lane: number): Promise<pg.Client> {
    const statementMs = this.config.databaseQueryTimeoutMs;
    const client = createPgClient(this.config.pooling.sessionUrl, {
      applicationName: 'loyalty-webhook-payloads',
      settings: { jit: 'off', ...(statementMs > 0 ? { statement_timeout: String(statementMs) } : {}) },
      connectTimeoutMs: 2_000,
      keepAlive: true,
      // PostgreSQL's statement timeout decides that a load took too long (the event's own failure, counted);
      // this timer only ends a connection that stopped answering (PostgreSQL unreachable: not counted). A
      // second past the statement timeout was not enough on a loaded machine: cancelling the read of a 36 MB
      // event took longer, the load was taken as PostgreSQL's failure, never counted, and the delivery was
      // given back without end (a CI run of webhooks-large-events).
      queryTimeoutMs: statementMs > 0 ? statementMs + 10_000 : 0,
    });
    // A connection lost while idle: the next load fails on it and reconnects.
    client.on('error', () => undefined);
    const connection = client.connect().then(() => client);
    this.connections.set(lane, connection);
    return connection;
  }
}
