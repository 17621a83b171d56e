import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import pg from 'pg';
import { AppConfig } from '../../config/app-config.js';
import { type AttemptContext, type AttemptRecord, type ClaimRow, contextFrom, NO_FLUSH_WAIT, RECORD_CTES, recordParams, toContext } from './webhook-delivery.repository.js';

/**
 * The dispatcher's claim, as CTEs ending in `claimed` (parameters from $p): up to $p+2 due deliveries,
 * oldest due first, no distribution beyond its free slots ($p+4 in flight at most; $p/$p+1 the worker's
 * requests in flight per distribution; a distribution already at the cap is skipped in the scan). The
 * candidates are read in due order from the due index without locks (a bounded window, $p+5 rows) and
 * ranked per distribution; only the picked ones are locked (SKIP LOCKED: another worker's claim takes
 * others), their state checked again on the locked row (still unsettled and unleased), and leased for
 * $p+3 ms.
 *
 * The statement is planned once per connection (SESSION_OPTIONS), so each step names its rows in a way
 * that has a single sensible plan whatever the table's size was when it was planned: picked rows by
 * primary key (`= ANY (ARRAY(…))`), and "unsettled" as `NOT IN ('SUCCEEDED', 'FAILED')`, which the due
 * index (`WHERE status = 'PENDING'`) cannot serve. Written as `status = 'PENDING'` with `IN (SELECT …)`,
 * a plan made while the table was small scanned every due delivery of a burst on each claim.
 */
const claimDueCtes = (p: number) => `
load AS (
  SELECT * FROM unnest($${p}::text[], $${p + 1}::int[]) AS l(distribution_id, in_flight)
), candidates AS (
  SELECT d.id, d.distribution_id, d.next_attempt_at FROM webhook_deliveries d
  WHERE d.status = 'PENDING' AND d.next_attempt_at <= now() AND (d.lease_until IS NULL OR d.lease_until < now())
    AND EXISTS (SELECT 1 FROM distributions dist WHERE dist.id = d.distribution_id AND dist.status = 'ACTIVE')
    AND d.distribution_id <> ALL (ARRAY(SELECT distribution_id FROM load WHERE in_flight >= $${p + 4}))
  ORDER BY d.next_attempt_at LIMIT $${p + 5}
), ranked AS (
  SELECT c.id, c.next_attempt_at, row_number() OVER (PARTITION BY c.distribution_id ORDER BY c.next_attempt_at) AS n, $${p + 4} - coalesce(l.in_flight, 0) AS free
  FROM candidates c LEFT JOIN load l USING (distribution_id)
), picked AS (
  SELECT d.id FROM webhook_deliveries d
  WHERE d.id = ANY (ARRAY(SELECT id FROM ranked WHERE n <= free ORDER BY next_attempt_at LIMIT $${p + 2}))
    AND d.status NOT IN ('SUCCEEDED', 'FAILED') AND (d.lease_until IS NULL OR d.lease_until < now())
  FOR UPDATE SKIP LOCKED
), claimed AS (
  UPDATE webhook_deliveries d SET lease_until = now() + $${p + 3} * interval '1 millisecond'
  WHERE d.id = ANY (ARRAY(SELECT id FROM picked)) AND ${NO_FLUSH_WAIT}
  RETURNING d.*
)`;

/**
 * One round trip of the dispatcher: the attempts that ended, and the next claim. Both parts see the
 * statement's snapshot, where the deliveries being recorded are still leased: the claim cannot take them.
 */
const RECORD_AND_CLAIM_DUE = `WITH ${RECORD_CTES}, ${claimDueCtes(9)}
${contextFrom('claimed')}`;

/** Candidates read beyond the claim's limit. */
const SCAN_MARGIN = 32;

/**
 * The session settings of the dispatcher's connection. Every table this statement reads is meant to be
 * read through an index (the due index in due order, then primary keys). Without fresh statistics (a
 * table that just grew by a burst of deliveries, before autovacuum analyzed it) the planner took a bitmap
 * scan of every due delivery and a sort, on each claim: a cost that grew with the backlog, and a third of
 * the dispatcher's PostgreSQL time in the benchmark (bench/README.md). With only index paths left, one
 * generic plan serves every run: planning this statement on each round trip cost the dispatcher's
 * PostgreSQL backend more than a third of its time (bench/README.md). PostgreSQL plans it again after
 * each ANALYZE of its tables.
 */
const SESSION_OPTIONS = '-c enable_bitmapscan=off -c enable_seqscan=off -c plan_cache_mode=force_generic_plan';

/**
 * The dispatcher's statement, on a connection of its own: the dispatcher makes one round trip at a time,
 * so one connection is all it needs, and its planner settings stay off the shared pool. A failed round
 * trip drops the connection (a timed-out statement may still be running on it); the next one reconnects.
 */
@Injectable()
export class DispatchRepository implements OnApplicationShutdown {
  private connection: Promise<pg.Client> | null = null;

  constructor(private readonly config: AppConfig) {}

  /**
   * Records these attempts and claims up to `limit` due deliveries, at most `maxPerTarget` in flight per
   * distribution counting `load` (the worker's requests in flight per distribution), in one statement.
   */
  async recordAndClaimDue(attempts: AttemptRecord[], limit: number, leaseMs: number, maxPerTarget: number, load: Map<string, number>): Promise<AttemptContext[]> {
    // The candidates' window: the limit and a few more, for rows passed over because their distribution
    // has fewer free slots than due deliveries (a claim that falls short is followed by another as
    // requests end). Four times the limit read mostly rows of a distribution near its cap, for nothing:
    // 12% of the dispatcher's PostgreSQL time with 40 requests in flight (bench/README.md).
    const scan = Math.min(1_000, limit + SCAN_MARGIN);
    const params = [...recordParams(attempts), [...load.keys()], [...load.values()], limit, leaseMs, maxPerTarget, scan];
    const connection = (this.connection ??= this.connect());
    try {
      // A named statement: parsed and planned once per connection, not on every round trip.
      const { rows } = await (await connection).query<ClaimRow>({ name: 'record-and-claim-due', text: RECORD_AND_CLAIM_DUE, values: params });
      return rows.map(toContext);
    } catch (error) {
      if (this.connection === connection) this.connection = null;
      void connection.then((client) => client.end()).catch(() => undefined);
      throw error;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    const connection = this.connection;
    this.connection = null;
    await connection?.then((client) => client.end()).catch(() => undefined);
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.config.databaseUrl,
      application_name: 'loyalty-webhook-dispatcher',
      options: SESSION_OPTIONS,
      connectionTimeoutMillis: 2_000,
      keepAlive: true,
      // The pool's client-side cap: a half-open connection must not hold the dispatcher for ever.
      ...(this.config.databaseQueryTimeoutMs > 0 ? { query_timeout: this.config.databaseQueryTimeoutMs } : {}),
    });
    // A connection lost while idle: the next round trip fails on it and reconnects.
    client.on('error', () => undefined);
    await client.connect();
    return client;
  }
}
