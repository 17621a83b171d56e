import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

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

/** The events' payloads, read apart from the claims (PayloadLoader). */
@Injectable()
export class EventPayloadRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * The payloads of these events, none larger than `maxBytes`, together at most `roomBytes` (but the first
   * that fits); an event not found has no row.
   */
  async load(eventIds: string[], maxBytes: number, roomBytes: number): Promise<PayloadRow[]> {
    return (await this.dataSource.query(LOAD, [eventIds, maxBytes, roomBytes])) as PayloadRow[];
  }
}
