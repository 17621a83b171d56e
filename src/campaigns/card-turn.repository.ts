import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Campaign } from './campaign.entity.js';

/** What a turn needs of its campaign. */
export type TurnCampaign = Pick<Campaign, 'id' | 'projectId' | 'voucher' | 'vouchersTarget' | 'vouchersCount'>;

const LIVE = `vouchers_generation_status = 'IN_PROGRESS' AND deleted_at IS NULL`;

/**
 * The turns of card generation (docs/architecture.md, "Card generation"): which campaign gets cards next.
 * Every statement is one short autocommit statement; the cards themselves go through CardIssueRepository.
 */
@Injectable()
export class CardTurnRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Takes the next turn: among live IN_PROGRESS campaigns nobody holds, the one of the project served
   * longest ago (the latest turn of any of its campaigns, finished ones too, so neither starting more
   * campaigns nor many that each finish in one turn put a project first; idx_campaigns_project_turn
   * answers it), then that project's campaign served longest ago; never served comes first.
   * The campaign is held until `leaseMs` from now. SKIP LOCKED: workers claiming at once take different
   * campaigns, and the lease is checked again on the row's latest version.
   */
  async claim(leaseMs: number): Promise<TurnCampaign | null> {
    const [rows] = (await this.dataSource.query(
      `UPDATE campaigns c
          SET generation_turn_at = clock_timestamp(), generation_lease_until = clock_timestamp() + make_interval(secs => $1::int / 1000.0)
         FROM (SELECT n.id FROM campaigns n
                CROSS JOIN LATERAL (SELECT max(s.generation_turn_at) AS served_at FROM campaigns s WHERE s.project_id = n.project_id) p
                WHERE n.vouchers_generation_status = 'IN_PROGRESS' AND n.deleted_at IS NULL
                  AND (n.generation_lease_until IS NULL OR n.generation_lease_until <= clock_timestamp())
                ORDER BY p.served_at ASC NULLS FIRST, n.generation_turn_at ASC NULLS FIRST, n.created_at, n.id
                LIMIT 1
                  FOR UPDATE OF n SKIP LOCKED) next
        WHERE c.id = next.id
       RETURNING c.id, c.project_id, c.voucher, c.vouchers_target, c.vouchers_count`,
      [leaseMs],
    )) as [Array<{ id: string; project_id: string; voucher: Campaign['voucher']; vouchers_target: number; vouchers_count: number }>, number];
    const row = rows[0];
    return row ? { id: row.id, projectId: row.project_id, voucher: row.voucher, vouchersTarget: row.vouchers_target, vouchersCount: row.vouchers_count } : null;
  }

  /** A turn that went through: the campaign is free for the next turn, and its failures are forgotten. */
  async release(id: string): Promise<void> {
    await this.dataSource.query(`UPDATE campaigns SET generation_lease_until = NULL, generation_failures = 0 WHERE id = $1`, [id]);
  }

  /**
   * A turn that threw: the campaign is held for `baseMs` × 2^(failures before this one), then any worker
   * tries again. Returns the failures in a row.
   */
  async recordFailure(id: string, baseMs: number): Promise<number> {
    const [rows] = (await this.dataSource.query(
      `UPDATE campaigns
          SET generation_failures = generation_failures + 1,
              generation_lease_until = clock_timestamp() + make_interval(secs => $2::int / 1000.0 * power(2, generation_failures))
        WHERE id = $1 RETURNING generation_failures`,
      [id, baseMs],
    )) as [Array<{ generation_failures: number }>, number];
    return rows[0]?.generation_failures ?? 0;
  }

  /**
   * After a claim that found nothing: when to claim again (null: no campaign is left for this worker).
   * Now, for a campaign nobody holds that the claim skipped because its row was locked for a moment (a
   * PUT on the campaign, another worker's count update): without this, every worker could stop with that
   * campaign IN_PROGRESS until the next sweep. Else when the first campaign waiting out a failed turn may
   * be tried again. Only holds of at most `backoffMs` are backoffs: a longer one is a turn in progress,
   * whose worker goes on.
   */
  async nextRetryAt(backoffMs: number): Promise<Date | null> {
    const [{ at }] = (await this.dataSource.query(
      `SELECT min(coalesce(generation_lease_until, clock_timestamp())) AS at FROM campaigns
        WHERE ${LIVE} AND (generation_lease_until IS NULL OR generation_lease_until <= clock_timestamp()
                           OR (generation_failures > 0 AND generation_lease_until <= clock_timestamp() + make_interval(secs => $1::int / 1000.0)))`,
      [backoffMs],
    )) as [{ at: Date | null }];
    return at;
  }
}
