import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

/** Where seeded members go: one program of one project, with cards of the program's campaign. */
export interface SeedTarget {
  projectId: string;
  programId: string;
  campaignId: string;
  /** The campaign's `voucher.loyalty_card.points`: each card starts with them as points and balance. */
  initialPoints: number;
}

/** One chunk of seeded rows: numbers `from`..`to` (inclusive) of a run. */
export interface SeedChunk {
  from: number;
  to: number;
  /** When the newest member (i = 1) joined; the others joined before it. */
  base: Date;
  /** Per-run random tag in card codes and customer source ids, so two runs in one project never collide. */
  tag: string;
}

/**
 * Bulk rows for benchmarks and load tests (`node dist/cli.js seed`): customers, their memberships and
 * one published card each, made by PostgreSQL from `generate_series` rather than sent row by row.
 *
 * The shapes match what the API makes: `cust_` + 24 and `v_` + 32 base62-like characters (base64 of a
 * SHA-256 with `+` and `/` mapped to letters), `lmbr_` + 18 hex. Members join newest first about 0.8 s
 * apart, going back from `base` (one million span about nine days): member i joined k = floor(i * 0.8)
 * seconds and a pseudo-random k-dependent number of milliseconds before `base`, so every fifth member
 * joined in the same millisecond as the one before it (the id breaks the tie, as the list must). About
 * 20% are INACTIVE.
 */
@Injectable()
export class MemberSeedRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Inserts one chunk and moves the campaign's card counters with it, in one transaction. Asynchronous
   * commit: a crash can lose the last chunks of a seed run, never corrupt it, and seed data is disposable.
   */
  async insertChunk(target: SeedTarget, chunk: SeedChunk): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.query('SET LOCAL synchronous_commit = off');
      // One statement: the MATERIALIZED CTE draws each row's ids, status and time once; the three
      // inserts read it. Foreign keys are checked at the end of the statement, when all rows exist.
      await manager.query(
        `WITH g AS MATERIALIZED (
           SELECT i,
                  'cust_' || translate(substr(encode(sha256(convert_to(random()::text || ':c' || i, 'UTF8')), 'base64'), 1, 24), '+/', 'Qz') AS customer_id,
                  'lmbr_' || substr(md5(random()::text || ':m' || i), 1, 18) AS member_id,
                  'v_' || translate(substr(encode(sha256(convert_to(random()::text || ':v' || i, 'UTF8')), 'base64'), 1, 32), '+/', 'Qz') AS card_id,
                  $5::timestamptz - make_interval(secs => k + (k * 7919 % 1000) / 1000.0) AS created_at,
                  CASE WHEN random() < 0.2 THEN 'INACTIVE' ELSE 'ACTIVE' END AS status
           FROM generate_series($6::int, $7::int) AS i
           CROSS JOIN LATERAL (SELECT floor(i * 0.8)::bigint AS k) AS t
         ),
         c AS (
           INSERT INTO customers (id, project_id, source_id, name, email, metadata, created_at)
           SELECT customer_id, $1, 'seed-' || $8 || '-' || i, 'Seed customer ' || i, 'seed-' || $8 || '-' || i || '@example.com', '{}', created_at
           FROM g
         ),
         m AS (
           INSERT INTO members (id, project_id, program_id, customer_id, status, metadata, created_at)
           SELECT member_id, $1, $2, customer_id, status, '{}', created_at
           FROM g
         )
         INSERT INTO vouchers (id, project_id, campaign_id, code, initial_points, points, balance, member_id, holder_id, published_at, created_at, updated_at)
         SELECT card_id, $1, $3, 'SEED-' || $8 || '-' || lpad(i::text, 8, '0'), $4::int, $4::int, $4::int, member_id, customer_id, created_at, created_at, created_at
         FROM g`,
        [target.projectId, target.programId, target.campaignId, target.initialPoints, chunk.base.toISOString(), chunk.from, chunk.to, chunk.tag],
      );
      const n = chunk.to - chunk.from + 1;
      await manager.query('UPDATE campaigns SET vouchers_count = vouchers_count + $2, vouchers_target = vouchers_target + $2 WHERE id = $1 AND project_id = $3', [
        target.campaignId,
        n,
        target.projectId,
      ]);
    });
  }

  /**
   * Fresh planner statistics and a set visibility map, so the first list request plans with the new row
   * counts, index-only scans need no heap visit, and autovacuum does not start on these tables while a
   * benchmark measures.
   */
  async vacuumAnalyze(): Promise<void> {
    await this.dataSource.query('VACUUM (ANALYZE) customers, members, vouchers');
  }
}
