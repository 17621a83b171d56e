import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type pg from 'pg';
import { DataCipher } from '../../../common/crypto/data-cipher.js';
import { AppConfig } from '../../../config/app-config.js';
import { createPgClient } from '../../../database/pg-client.js';
import { type ClaimRow, contextFrom, toContext } from '../delivery.sql.js';
import type { AttemptRecord, ClaimedDelivery } from '../delivery.types.js';
import { NO_FLUSH_WAIT, RECORD_CTES, recordParams } from './attempt.sql.js';

/**
 * Projects walked per claim at most: a claim behind this many projects whose deliveries all wait for a
 * later retry finds none due, and the next claim walks on from there.
 */
const MAX_WALK = 1_000;
/**
 * Projects with due deliveries and free slots looked for beyond the claim's limit, for those whose due
 * deliveries are all in flight (another worker's lease) or whose distributions are at their cap.
 */
const PROJECT_MARGIN = 8;
/**
 * Events stored in at most this many bytes come back with the claim (contextFrom's `inline`), the others are
 * read apart (PayloadLoader): a claim of 100 deliveries then reads at most 1.6 MB of stored payloads.
 */
export const INLINE_MAX_STORED_BYTES = 16_384;

/** The claim's bounds, per worker. */
export interface DispatchCaps {
  /** Requests in flight per distribution, at most. */
  perTarget: number;
  /** A project's share of the slots, at most (WEBHOOK_PROJECT_MAX_IN_FLIGHT). */
  maxShare: number;
  /** The worker's dispatcher slots: the share is `slots / (n + 1)` with n projects that have work. */
  slots: number;
  /** The requests in flight a project absent from `DispatchLoad.caps` may have (ProjectShares). */
  initialWindow: number;
  /** Event payload bytes the claim may take (stored sizes), and the largest event it reads at all. */
  freeBytes: number;
  maxBytes: number;
}

/**
 * The worker's requests in flight per distribution and per project (those with none are absent), and the
 * requests in flight each project in flight or slow may have (ProjectShares.caps).
 */
export interface DispatchLoad {
  targets: Map<string, number>;
  projects: Map<string, number>;
  caps: Map<string, number>;
}

/** What one round trip claimed, where the next starts, and the share it gave each project. */
export interface DispatchClaim {
  claimed: ClaimedDelivery[];
  nextProject: string;
  share: number;
}

/**
 * The next project with PENDING deliveries after `after`, or the first one: its earliest due time (null
 * when all of them are parked: nulls sort last).
 */
const nextProject = (after: string) => `
  (SELECT d.project_id, d.next_attempt_at FROM webhook_deliveries d
   WHERE d.status = 'PENDING' AND d.project_id > ${after} ORDER BY d.project_id, d.next_attempt_at LIMIT 1)
  UNION ALL
  (SELECT d.project_id, d.next_attempt_at FROM webhook_deliveries d
   WHERE d.status = 'PENDING' ORDER BY d.project_id, d.next_attempt_at LIMIT 1)
  LIMIT 1`;

/**
 * How many more requests `project` may have in flight under a share of `share`: its cap less its requests
 * in flight (project_load), or `initial` (the initial window) for a project absent from it.
 */
const room = (project: string, share: string, initial: string) =>
  `coalesce((SELECT least(pl.cap, ${share}) - pl.in_flight FROM project_load pl WHERE pl.project_id = ${project}), least(${initial}, ${share}))`;

/**
 * The dispatcher's claim, as CTEs ending in `claimed` (parameters from $p), which takes projects in turn:
 * up to $p+2 due deliveries, the n-th of every project before the (n+1)-th of any, no project beyond its
 * share and no distribution beyond its free slots ($p+4 in flight at most; $p/$p+1 per distribution), and
 * events within a byte budget.
 *
 * Shares (ProjectShares): `share` is $p+15 slots / (n + 1), at most $p+9, n being the projects the walk
 * found with due deliveries together with those with requests in flight ($p+6/$p+7, the worker's per
 * project); no project gets more than its cap ($p+8: its window, or a slow project's part of their half),
 * or $p+14 (the initial window) when it has none.
 *
 * `walk` is a loose index scan of the projects with PENDING deliveries, in project order from the one after
 * $p+11 (where the last claim stopped), around once at most: one probe of the (project, due time) index per
 * project, which also gives the project's earliest due time. It stops once it found $p+5 projects with due
 * deliveries and room under the last claim's share ($p+10: the share itself needs the walk), or after
 * MAX_WALK projects. Each such project then gives at most its room under `share` (and the claim's limit) of
 * its due deliveries, oldest first, read from the same index without locks: a project's backlog, however
 * long, is read a few rows at a time, and never hides another's. In that order, the claim takes deliveries
 * while the events of those before stay below $p+12 bytes, as PostgreSQL stores them (`pg_column_size`,
 * read from the row without reading the payload; an event larger than $p+13 counts for nothing, as it is
 * never read). Only the picked ones are locked (SKIP LOCKED: another worker's claim takes others), their
 * state checked again on the locked row (still unsettled and unleased), and leased for $p+3 ms. The last
 * columns: `next_project`, where the next claim starts (the project of the last delivery picked, or the
 * last project walked), and `share`.
 *
 * The statement is planned once per connection (SESSION_SETTINGS), so each step names its rows in a way
 * that has a single sensible plan whatever the table's size was when it was planned: index probes with an
 * equality on the project (or a bound on it) in the order the index gives; the distribution's status by
 * primary key (as an EXISTS, the plan made with a few distributions scanned the whole partial index of
 * ACTIVE ones per candidate); the event's size by primary key, for the chosen only; picked rows by primary
 * key (`= ANY (ARRAY(…))`); and
 * "unsettled" as `NOT IN ('SUCCEEDED', 'FAILED')`, which the due index (`WHERE status = 'PENDING'`) cannot
 * serve (written as `status = 'PENDING'` with `IN (SELECT …)`, a plan made while the table was small
 * scanned every due delivery of a burst on each claim). The table has no other index of PENDING rows by due
 * time: with one on `next_attempt_at` alone, the plan made when the statistics saw two projects read a
 * project's due deliveries through it, passing over every other project's on each claim (bench/README.md).
 */
const claimDueCtes = (p: number) => `
load AS (
  SELECT * FROM unnest($${p}::text[], $${p + 1}::int[]) AS l(distribution_id, in_flight)
), project_load AS (
  SELECT l.project_id, l.in_flight, least(coalesce(l.cap, $${p + 9}::int), $${p + 9}::int) AS cap
  FROM unnest($${p + 6}::text[], $${p + 7}::int[], $${p + 8}::int[]) AS l(project_id, in_flight, cap)
), walk AS (
  SELECT f.project_id, f.project_id AS first, 1 AS pos, f.due, f.eligible, f.eligible::int AS found
  FROM (SELECT n.project_id, n.due, n.due AND ${room('n.project_id', `$${p + 10}::int`, `$${p + 14}::int`)} > 0 AS eligible
        FROM (SELECT n.project_id, coalesce(n.next_attempt_at <= now(), false) AS due FROM (${nextProject(`$${p + 11}::text`)}) n) n) f
  UNION ALL
  SELECT f.project_id, w.first, w.pos + 1, f.due, f.eligible, w.found + f.eligible::int
  FROM walk w CROSS JOIN LATERAL (
    SELECT n.project_id, n.due, n.due AND ${room('n.project_id', `$${p + 10}::int`, `$${p + 14}::int`)} > 0 AS eligible
    FROM (SELECT n.project_id, coalesce(n.next_attempt_at <= now(), false) AS due FROM (${nextProject('w.project_id')}) n) n
  ) f
  WHERE f.project_id <> w.first AND w.found < $${p + 5} AND w.pos < ${MAX_WALK}
), share AS (
  SELECT greatest(1, least($${p + 9}::int, $${p + 15}::int / (1 + (SELECT count(*) FROM (SELECT project_id FROM walk WHERE due UNION SELECT project_id FROM project_load WHERE in_flight > 0) active))))::int AS n
), candidates AS (
  SELECT c.id, c.distribution_id, c.event_id, w.project_id, c.next_attempt_at, w.pos
  FROM walk w CROSS JOIN LATERAL (
    SELECT d.id, d.distribution_id, d.event_id, d.next_attempt_at FROM webhook_deliveries d
    WHERE d.project_id = w.project_id AND d.status = 'PENDING' AND d.next_attempt_at <= now()
      AND (d.lease_until IS NULL OR d.lease_until < now())
      AND (SELECT dist.status FROM distributions dist WHERE dist.id = d.distribution_id) = 'ACTIVE'
      AND d.distribution_id <> ALL (ARRAY(SELECT distribution_id FROM load WHERE in_flight >= $${p + 4}))
    ORDER BY d.next_attempt_at
    LIMIT greatest(0, least($${p + 2}, ${room('w.project_id', '(SELECT n FROM share)', `$${p + 14}::int`)}))
  ) c
  WHERE w.eligible
), ranked AS (
  SELECT c.id, c.project_id, c.event_id, c.pos, c.next_attempt_at, row_number() OVER (PARTITION BY c.distribution_id ORDER BY c.next_attempt_at) AS n, $${p + 4} - coalesce(l.in_flight, 0) AS free
  FROM candidates c LEFT JOIN load l USING (distribution_id)
), ordered AS (
  SELECT r.id, r.project_id, r.event_id, r.pos, row_number() OVER (PARTITION BY r.project_id ORDER BY r.next_attempt_at) AS turn
  FROM ranked r WHERE r.n <= r.free
  ORDER BY turn, r.pos LIMIT $${p + 2}
), sized AS (
  SELECT o.id, o.project_id, o.pos, o.turn,
         coalesce((SELECT CASE WHEN pg_column_size(ev.data) > $${p + 13}::int THEN 0 ELSE pg_column_size(ev.data) END FROM events ev WHERE ev.id = o.event_id), 0) AS bytes
  FROM ordered o
), chosen AS (
  SELECT s.id, s.project_id, s.pos, s.turn FROM (
    SELECT s.*, sum(s.bytes) OVER (ORDER BY s.turn, s.pos ROWS UNBOUNDED PRECEDING) - s.bytes AS before FROM sized s
  ) s WHERE s.before < $${p + 12}::bigint
), picked AS (
  SELECT d.id FROM webhook_deliveries d
  WHERE d.id = ANY (ARRAY(SELECT id FROM chosen))
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
 * One row with a null `id` when nothing was claimed, for `next_project` and `share`. The payloads of small
 * events ($25 bytes stored at most) come with their deliveries while their texts fit the claim's free bytes.
 */
const RECORD_AND_CLAIM_DUE = `WITH RECURSIVE ${RECORD_CTES}, ${claimDueCtes(9)}
SELECT ctx.*, cur.next_project, cur.share
FROM (SELECT coalesce((SELECT project_id FROM chosen ORDER BY turn DESC, pos DESC LIMIT 1), (SELECT project_id FROM walk ORDER BY pos DESC LIMIT 1), $20::text) AS next_project,
             (SELECT n FROM share) AS share) cur
LEFT JOIN (${contextFrom('claimed', { inline: { maxStored: 'least($25::int, $22::int)', room: '$21::bigint' } })}) ctx ON true`;

/**
 * The session settings of the dispatcher's connection. Every table this statement reads is meant to be
 * read through an index (the (project, due time) index, then primary keys). Without fresh statistics (a
 * table that just grew by a burst of deliveries, before autovacuum analyzed it) the planner took a bitmap
 * scan of every due delivery and a sort, on each claim: a cost that grew with the backlog, and a third of
 * the dispatcher's PostgreSQL time in the benchmark (bench/README.md). With only index paths left, one
 * generic plan serves every run: planning this statement on each round trip cost the dispatcher's
 * PostgreSQL backend more than a third of its time (bench/README.md). PostgreSQL plans it again after
 * each ANALYZE of its tables. JIT compilation is off: the disabled scan types make the plan's estimated
 * cost huge, which made PostgreSQL compile the statement on every run once the walk of projects was in it
 * (3 s per claim instead of 3 ms, bench/README.md).
 */
const SESSION_SETTINGS = { enable_bitmapscan: 'off', enable_seqscan: 'off', plan_cache_mode: 'force_generic_plan', jit: 'off' };

/**
 * The dispatcher's statement, on a connection of its own: the dispatcher makes one round trip at a time,
 * so one connection is all it needs, and its planner settings stay off the shared pool. A failed round
 * trip drops the connection (a timed-out statement may still be running on it); the next one reconnects.
 */
@Injectable()
export class DispatchRepository implements OnApplicationShutdown {
  private connection: Promise<pg.Client> | null = null;

  constructor(
    private readonly config: AppConfig,
    private readonly cipher: DataCipher,
  ) {}

  /**
   * Records these attempts and claims up to `limit` due deliveries, projects in turn from the one after
   * `after` ('' at first), within `caps` counting `load` (the worker's requests in flight), in one
   * statement; `shareHint` is the last claim's share. Answers the deliveries claimed (without their
   * events' payloads, but for small events': EventHead.inline), the project the next claim starts after,
   * and this claim's share.
   */
  async recordAndClaimDue(attempts: AttemptRecord[], limit: number, leaseMs: number, caps: DispatchCaps, load: DispatchLoad, shareHint: number, after: string): Promise<DispatchClaim> {
    const projects = [...new Set([...load.projects.keys(), ...load.caps.keys()])];
    const params = [
      ...recordParams(attempts),
      [...load.targets.keys()],
      [...load.targets.values()],
      limit,
      leaseMs,
      caps.perTarget,
      Math.min(MAX_WALK, limit + PROJECT_MARGIN),
      projects,
      projects.map((project) => load.projects.get(project) ?? 0),
      projects.map((project) => load.caps.get(project) ?? null),
      caps.maxShare,
      shareHint,
      after,
      caps.freeBytes,
      caps.maxBytes,
      caps.initialWindow,
      caps.slots,
      INLINE_MAX_STORED_BYTES,
    ];
    const connection = (this.connection ??= this.connect());
    try {
      // A named statement: parsed and planned once per connection, not on every round trip.
      const { rows } = await (await connection).query<ClaimRow & { next_project: string; share: number }>({ name: 'record-and-claim-due', text: RECORD_AND_CLAIM_DUE, values: params });
      return { claimed: rows.filter((row) => row.id !== null).map((row) => toContext(row, this.cipher)), nextProject: rows[0]?.next_project ?? after, share: rows[0]?.share ?? shareHint };
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
    const client = createPgClient(this.config.pooling.sessionUrl, {
      applicationName: 'loyalty-webhook-dispatcher',
      settings: SESSION_SETTINGS,
      connectTimeoutMs: 2_000,
      keepAlive: true,
      // The pool's client-side cap: a half-open connection must not hold the dispatcher for ever.
      queryTimeoutMs: this.config.databaseQueryTimeoutMs,
    });
    // A connection lost while idle: the next round trip fails on it and reconnects.
    client.on('error', () => undefined);
    await client.connect();
    return client;
  }
}
