import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, Repository } from 'typeorm';
import { DiagnosticPing } from './diagnostic-ping.entity.js';

/** A ping `d` the sweep may take up: QUEUED, and last enqueued more than `$1` ms ago. */
const DUE = `d.status = 'QUEUED' AND coalesce(d.swept_at, d.created_at) < now() - $1 * interval '1 millisecond'`;

@Injectable()
export class DiagnosticPingRepository {
  private readonly pings: Repository<DiagnosticPing>;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.pings = dataSource.getRepository(DiagnosticPing);
  }

  async insert(ping: Pick<DiagnosticPing, 'id' | 'projectId' | 'note' | 'workMs'>): Promise<DiagnosticPing> {
    return this.pings.save(this.pings.create({ ...ping, status: 'QUEUED' }));
  }

  async findInProject(projectId: string, id: string): Promise<DiagnosticPing | null> {
    return this.pings.findOneBy({ projectId, id });
  }

  /** Worker side: the job names the row by id; the row carries its project. */
  async findById(id: string): Promise<DiagnosticPing | null> {
    return this.pings.findOneBy({ id });
  }

  /**
   * The sweep's claim: up to `limit` QUEUED pings last enqueued (by their request, or by the sweep: `swept_at`)
   * more than `minAgeMs` ago, stamped `swept_at = now()`, so that the next runs take the others first (a ping
   * whose job keeps failing goes to the back instead of taking every batch) and a concurrent run of another
   * worker skips them (SKIP LOCKED, and the age checked again on the locked row). Projects are tenants, so the
   * batch is shared, each project's longest-waiting pings first: `first`, an equal share for every project
   * with such pings; `second`, the room the projects with fewer left, shared the same way between the projects
   * that filled theirs (room a second pass would leave waits for the next run). So one project's thousands of
   * stuck pings cannot hold back another's one. Reads a probe of idx_diagnostic_pings_queued per project and
   * about twice the batch.
   */
  async claimStale(minAgeMs: number, limit: number): Promise<{ id: string; requeueCount: number }[]> {
    const rows = (await this.dataSource.query(
      `WITH due AS MATERIALIZED (
         SELECT p.id FROM projects p WHERE EXISTS (SELECT 1 FROM diagnostic_pings d WHERE d.project_id = p.id AND ${DUE})
       ), share AS MATERIALIZED (
         SELECT ceil($2::numeric / greatest(count(*), 1))::int AS n FROM due
       ), first AS MATERIALIZED (
         SELECT due.id AS project_id, s.id, s.since FROM due CROSS JOIN LATERAL (
           SELECT d.id, coalesce(d.swept_at, d.created_at) AS since FROM diagnostic_pings d
           WHERE d.project_id = due.id AND ${DUE} ORDER BY coalesce(d.swept_at, d.created_at) LIMIT (SELECT n FROM share)
         ) s
       ), more AS MATERIALIZED (
         SELECT project_id FROM first GROUP BY project_id HAVING count(*) = (SELECT n FROM share)
       ), second AS (
         SELECT s.id, s.since FROM more CROSS JOIN LATERAL (
           SELECT d.id, coalesce(d.swept_at, d.created_at) AS since FROM diagnostic_pings d
           WHERE d.project_id = more.project_id AND ${DUE} ORDER BY coalesce(d.swept_at, d.created_at)
           OFFSET (SELECT n FROM share)
           LIMIT (SELECT greatest(0, ceil(($2 - (SELECT count(*) FROM first))::numeric / greatest(count(*), 1)))::int FROM more)
         ) s
       ), picked AS (
         SELECT id FROM (SELECT 1 AS pass, id, since FROM first UNION ALL SELECT 2, id, since FROM second) c
         ORDER BY pass, since, id LIMIT $2
       ), locked AS (
         SELECT d.id FROM diagnostic_pings d WHERE d.id = ANY (ARRAY(SELECT id FROM picked)) AND ${DUE} FOR UPDATE SKIP LOCKED
       )
       UPDATE diagnostic_pings SET swept_at = now() WHERE id = ANY (ARRAY(SELECT id FROM locked))
       RETURNING id, requeue_count`,
      [minAgeMs, limit],
    )) as [{ id: string; requeue_count: number }[], number];
    return rows[0].map((row) => ({ id: row.id, requeueCount: row.requeue_count }));
  }

  /**
   * Claimed pings that have no job left to run (none in Redis, or a failed one): those the sweep already
   * enqueued again `maxRequeues` times become FAILED (given up), the others count one more requeue; the ids
   * to enqueue. Conditional on QUEUED, so a ping completed meanwhile is neither.
   */
  async requeueOrGiveUp(ids: string[], maxRequeues: number): Promise<string[]> {
    const rows = (await this.dataSource.query(
      `UPDATE diagnostic_pings SET status = CASE WHEN requeue_count >= $2 THEN 'FAILED' ELSE status END,
              requeue_count = requeue_count + CASE WHEN requeue_count >= $2 THEN 0 ELSE 1 END
       WHERE id = ANY ($1::text[]) AND status = 'QUEUED'
       RETURNING id, status`,
      [ids, maxRequeues],
    )) as [{ id: string; status: string }[], number];
    return rows[0].filter((row) => row.status === 'QUEUED').map((row) => row.id);
  }

  async delete(projectId: string, id: string): Promise<void> {
    await this.pings.delete({ projectId, id });
  }

  /** Conditional QUEUED → DONE, so a retried job cannot complete the same ping twice. */
  async markDone(id: string, processedBy: string): Promise<boolean> {
    const result = await this.pings.update({ id, status: 'QUEUED' }, { status: 'DONE', processedAt: new Date(), processedBy });
    return (result.affected ?? 0) > 0;
  }
}
